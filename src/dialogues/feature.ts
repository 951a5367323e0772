// The owner's inbox as it plugs into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { createDialoguesApi, dialoguesSlot } from './api';
import { dialoguesRouter } from './router';

export const dialoguesFeature = defineFeature({ slot: dialoguesSlot, create: createDialoguesApi, routers: { dialogues: dialoguesRouter } });
