// The VK community: its settings, the callback webhook, and the assistant that answers in it.
import { agentsSlot } from '../../agents/api';
import { assistantSlot } from '../../assistant/api';
import { gatewaySlot } from '../../gateway/api';
import { type Base, defineSlot, type Use } from '../../platform/feature';
import { bookingSlot } from '../booking/api';
import { messengerSlot } from '../messenger/api';
import { orderPaid } from '../../commerce/events';
import { createSocial } from './module';
import { tellClientOrderPaid } from './order-paid';

export function createSocialApi({ db, secretBox, logger, outbox, config, metrics, events }: Base, use: Use) {
  const { shopFlow, toolProviders, knowledgeTools } = use(assistantSlot);
  const { messenger } = use(messengerSlot);
  const { agents } = use(agentsSlot);
  const social = createSocial({
    shopFlow,
    toolProviders,
    knowledgeForPrompt: knowledgeTools.knowledgeForPrompt,
    observeEvent: (outcome) => metrics.webhookEvent('social', outcome),
    db,
    box: secretBox,
    logger,
    outbox,
    chat: use(gatewaySlot).chat,
    agents,
    escalations: messenger.escalations,
    messengerSettings: messenger.settings,
    notifier: messenger.notifier,
    ownerMail: messenger.ownerMail,
    booking: use(bookingSlot).booking,
    config,
  });
  events.on(orderPaid, tellClientOrderPaid);
  return { social, agents };
}

export type SocialApi = ReturnType<typeof createSocialApi>;
export const socialSlot = defineSlot<SocialApi>('social');
