// What the gateway tells other features, without knowing them.
import { defineEvent } from '../platform/events';
import type { Charge } from './billing';

/** Billing wrote these charges (after each batch): whose money, and which limited key, moved. */
export const charged = defineEvent<readonly Charge[]>('gateway.charged');
