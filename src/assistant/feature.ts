// The assistant's tools as they plug into the composition (src/features.ts); the assistant's procedures
// serve the VK dialogue, so the social feature lists them.
import { defineFeature } from '../platform/feature';
import { assistantSlot, createAssistantApi } from './api';

export const assistantFeature = defineFeature({ slot: assistantSlot, create: createAssistantApi });
