// The integrations/messenger feature's way in for other features: what they may use of it. Anything not exported here is
// the feature's own (the import graph test refuses a deep import past this file).
export { messengerSlot } from './api';
export type { DialogueRelay, Escalations } from './escalations';
export { dayIn, formatAmount, formatOrderNumber, type Notifier } from './notify';
export type { OwnerMail } from './owner-mail';
export type { MessengerSettings } from './settings';
export { messengerTexts } from './texts';
