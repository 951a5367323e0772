// The assistant feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { assistantSlot } from './api';
export { createBookingFlow } from './booking-flow';
export { createVisitReminders } from './reminders';
export { createAfterVisit } from './after-visit';
export type { MessageMedia, ReplyChannel, ShownButtons } from './channel';
export { createAssistant, type Assistant } from './dialogue';
export type { ReplyButtons } from './reply';
export type { ShopFlow } from './shop-flow';
export { assistantTexts } from './texts';
export type { ToolProvider } from './tools/types';
