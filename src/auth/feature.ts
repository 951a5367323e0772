// The authenticator as it plugs into the composition (src/features.ts).
import { defineFeature } from '../platform/feature';
import { authSlot, createAuthApi } from './api';

export const authFeature = defineFeature({ slot: authSlot, create: createAuthApi });
