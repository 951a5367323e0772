// The types the dialogue and its flows (booking-flow.ts, shop-flow.ts) and tools share: here, below all of
// them, so that a flow never imports the dialogue that drives it.
import type { DeliveryMethod, OrderDelivery } from '../commerce';
import type { Executor } from '../db/client';
import type { dialogues } from '../dialogues/tables';
import type { ReplyButtons } from './reply';

export type DialogueRow = typeof dialogues.$inferSelect;

/** A multi-step exchange in progress, kept on the dialogue between messages. */
export type Flow =
  | { step: 'phone'; reason: string }
  | { step: 'booking_name'; specialistId: string; serviceId: string; datetime: string }
  | { step: 'booking_phone'; specialistId: string; serviceId: string; datetime: string; clientName: string }
  /** The summary shown with «Подтвердить» / «Изменить»: nothing is booked before the client confirms. */
  | { step: 'booking_confirm'; specialistId: string; serviceId: string; datetime: string; clientName: string; clientPhone: string }
  /** «Перенести»: the new time chosen, shown with the old one; YCLIENTS' PUT /record moves it once confirmed. */
  | { step: 'reschedule_confirm'; appointmentId: string; specialistId: string; serviceId: string; datetime: string; previous: string }
  /** The shop's delivery methods shown as buttons (only when the shop set delivery up). */
  | { step: 'checkout_delivery' }
  /** Courier or post chosen: the address, then the recipient's name. */
  | { step: 'checkout_address'; method: DeliveryMethod; priceMinor: number }
  | { step: 'checkout_recipient'; method: DeliveryMethod; priceMinor: number; address: string }
  | { step: 'checkout_phone'; delivery?: OrderDelivery }
  /** The order's summary shown with «Подтвердить» / «Изменить»: the order is placed once the client confirms. */
  | { step: 'checkout_confirm'; clientPhone: string; delivery?: OrderDelivery };

/** Sends a text (and buttons) to the dialogue's client, inside `executor`'s transaction when given. */
export type Say = (dialogue: DialogueRow, text: string, buttons?: ReplyButtons, executor?: Executor) => Promise<void>;
/** Stores the dialogue's flow (null: none) with any other columns that change with it. */
export type SetFlow = (executor: Executor, dialogueId: string, flow: Flow | null, extra?: Partial<DialogueRow>) => Promise<void>;
