// The keys feature as it plugs into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { keysRouter } from './router';
import { createKeysApi, keysSlot } from './api';

export const keysFeature = defineFeature({
  slot: keysSlot,
  create: createKeysApi,
  async start({ verifier }, { lifecycle }) {
    await verifier.start();
    lifecycle.onShutdown('key verifier', () => verifier.stop());
  },
  routers: { keys: keysRouter },
});
