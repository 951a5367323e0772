// The VK community as it plugs into the composition (src/features.ts), with the assistant's procedures:
// the assistant they describe is the one this feature runs.
import { assistantRouter } from './assistant-router';
import { broadcastsRouter } from './broadcasts-router';
import { defineFeature } from '../../platform/feature';
import { createSocialApi, socialSlot } from './api';
import { socialRouter } from './router';
import { socialCallbackRoute, socialConfirmationCodeRoute } from './webhook.route';

export const socialFeature = defineFeature({
  slot: socialSlot,
  create: createSocialApi,
  start({ social }, { lifecycle }) {
    social.start();
    lifecycle.onShutdown('social', () => social.stop());
  },
  routers: { social: socialRouter, assistant: assistantRouter, broadcasts: broadcastsRouter },
  rawRoutes: [socialConfirmationCodeRoute, socialCallbackRoute],
});
