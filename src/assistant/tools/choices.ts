// offer_choices (decisions.md, fourth round: `offer_choices {text, choices: [{label, value}]}`): the model
// answers the client with buttons under its text, and each button continues the right flow when tapped —
// a free time leads to the booking's summary and «Подтвердить» (booking-flow.ts, never booked on a tap
// alone), a service to the choice of specialist and time, a product into the cart (the shop's own add
// button), a plain answer back to the model as if the client had typed it. Every id is checked against
// this agent's salon or shop before a button is shown; a tap re-checks what may have changed since.
// find_slots' free times become buttons under the model's next answer through `slotChoiceButtons`.
import { z } from 'zod';
import type { Agent } from '../../agents';
import type { Catalog } from '../../commerce';
import { isIsoInstant } from '../../http/date-input';
import type { BookableService, BookingService, BookingSettings, Specialist } from '../../integrations/booking';
import { ACTIONS } from '../menus';
import { callbackButton, dataLabel, type ButtonPayload, type CallbackButton, type ReplyButtons } from '../reply';
import { formatSlotShort } from '../texts';
import { choicesTexts as ct } from './choices-texts';
import type { AssistantTool, ToolContext, ToolProvider, ToolResult } from './types';

export const OFFER_CHOICES_TOOL = 'offer_choices';

/** VK's inline keyboard: at most 10 buttons in 6 rows of up to 5, labels of 40 characters, payloads of 255 bytes. */
export const CHOICE_LIMITS = { buttons: 10, rows: 6, labelChars: 40, payloadBytes: 255, textValueChars: 100 } as const;
/** Labels this short sit two to a row; longer ones get a row each (while six rows hold them). */
const SHORT_LABEL = 18;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Control characters (NUL among them) never reach a label or a message. */
const clean = (text: string) => text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ');

/** A label as one line of at most VK's 40 characters, cut with «…». */
export function choiceLabel(text: string): string {
  const line = dataLabel(clean(text));
  if (line.length <= CHOICE_LIMITS.labelChars) return line;
  return `${line
    .slice(0, CHOICE_LIMITS.labelChars - 1)
    .replace(/[\uD800-\uDBFF]$/, '')
    .trimEnd()}…`;
}

export const slotPayload = (slot: { serviceId: string; specialistId: string; datetime: string }): ButtonPayload => ({
  action: ACTIONS.choiceSlot,
  s: slot.specialistId,
  v: slot.serviceId,
  t: slot.datetime,
});
export const servicePayload = (serviceId: string): ButtonPayload => ({ action: ACTIONS.choiceService, v: serviceId });
/** The shop's own «➕» button: the product goes into the cart as the catalog's button puts it there. */
export const productPayload = (productId: string): ButtonPayload => ({ action: ACTIONS.cartAdd, id: productId });
export const textPayload = (text: string): ButtonPayload => ({ action: ACTIONS.choiceText, x: text });

/** The text a text choice stands for, or null when `payload` is not a well-formed one (a forged press). */
export function textOfChoice(payload: ButtonPayload | null): string | null {
  if (payload?.action !== ACTIONS.choiceText || typeof payload.x !== 'string') return null;
  const text = clean(payload.x).trim();
  return text === '' || text.length > CHOICE_LIMITS.textValueChars ? null : text;
}

const fits = (payload: ButtonPayload) => new TextEncoder().encode(JSON.stringify(payload)).length <= CHOICE_LIMITS.payloadBytes;

/** Buttons in rows: short labels two to a row, long ones alone, never more than six rows. */
export function choiceRows(buttons: CallbackButton[]): ReplyButtons {
  const list = buttons.slice(0, CHOICE_LIMITS.buttons);
  const alone = list.every((b) => b.label.length > SHORT_LABEL) ? list.length <= CHOICE_LIMITS.rows : list.length <= 3;
  const perRow = alone ? 1 : 2;
  const rows: ReplyButtons = [];
  for (let i = 0; i < list.length; i += perRow) rows.push(list.slice(i, i + perRow));
  return rows;
}

/**
 * find_slots' free times as buttons for the model's answer: the first ten in time order, each leading to
 * the booking's summary when tapped; the specialist's name is on the label when the times are several's.
 */
export function slotChoiceButtons(slots: { serviceId: string; specialistId: string; specialistName: string; datetime: string }[]): ReplyButtons | null {
  const shown = slots.slice(0, CHOICE_LIMITS.buttons).filter((slot) => fits(slotPayload(slot)));
  if (shown.length === 0) return null;
  const several = new Set(shown.map((s) => s.specialistId)).size > 1;
  return choiceRows(
    shown.map((slot) =>
      callbackButton(
        choiceLabel(several ? `${formatSlotShort(slot.datetime)} ${slot.specialistName}` : formatSlotShort(slot.datetime)),
        slotPayload(slot),
        'positive',
      ),
    ),
  );
}

const id = z
  .union([z.string(), z.number()])
  .transform((v) => String(v).trim())
  .pipe(z.string().min(1).max(100));
const slotValue = z.strictObject({ serviceId: id, specialistId: id, datetime: z.string().trim().max(40) });
const serviceValue = z.strictObject({ serviceId: id });
const productValue = z.strictObject({ productId: id });
const choice = z.object({
  label: z.string().max(1000),
  value: z.union([z.string().max(1000), slotValue, serviceValue, productValue]),
});
const offerArgs = z.object({ text: z.string().max(4000), choices: z.array(choice).min(1).max(100) });

type Choice = z.infer<typeof choice>;

export interface ChoiceToolsDeps {
  booking: Pick<BookingService, 'services' | 'specialists' | 'slots'>;
  bookingSettings: Pick<BookingSettings, 'load'>;
  catalog: Pick<Catalog, 'get'>;
}

/** A result telling the model what to correct; the turn goes on and the model calls again. */
const refused = (error: string): ToolResult => ({ result: { ok: false, error }, summary: ct.summaryRefused(error) });

class Refusal extends Error {}

export function createChoiceTools(deps: ChoiceToolsDeps): ToolProvider {
  /** The salon's lists, read once per call and only when a choice needs them. */
  function salon(agent: Agent, n: number) {
    let lists: Promise<{ services: BookableService[]; specialists: Specialist[] }> | null = null;
    return async () => {
      if (agent.type !== 'service' || !(await deps.bookingSettings.load(agent.id).catch(() => null))) throw new Refusal(ct.noBooking(n));
      lists ??= Promise.all([deps.booking.services(agent.id), deps.booking.specialists(agent.id)]).then(([services, specialists]) => ({ services, specialists }));
      return lists;
    };
  }

  /** One choice as its button, or a Refusal naming what the model must correct (`n` counts from 1). */
  async function buttonOf(agent: Agent, item: Choice, n: number, free: Map<string, Promise<string[]>>): Promise<CallbackButton> {
    const label = choiceLabel(item.label);
    if (label === '') throw new Refusal(ct.badArguments(`choices[${n - 1}].label`));
    const value = item.value;
    if (typeof value === 'string') {
      const text = clean(value).trim();
      if (text === '') throw new Refusal(ct.badArguments(`choices[${n - 1}].value`));
      const payload = textPayload(text);
      if (text.length > CHOICE_LIMITS.textValueChars || !fits(payload)) throw new Refusal(ct.valueTooLong(n));
      return callbackButton(label, payload, 'secondary');
    }
    if ('productId' in value) {
      if (agent.type !== 'ecommerce') throw new Refusal(ct.noShop(n));
      const product = await deps.catalog.get(agent.id, value.productId).catch(() => null);
      if (!product) throw new Refusal(ct.unknownProduct(n, value.productId));
      if (!product.available || product.stock === 0) throw new Refusal(ct.productUnavailable(n));
      return callbackButton(label, productPayload(product.id), 'primary');
    }
    const { services, specialists } = await salon(agent, n)();
    const service = services.find((s) => s.id === value.serviceId);
    if (!service) throw new Refusal(ct.unknownService(n, value.serviceId));
    if (!('datetime' in value)) {
      const payload = servicePayload(service.id);
      if (!fits(payload)) throw new Refusal(ct.idsTooLong(n));
      return callbackButton(label, payload, 'primary');
    }
    const specialist = specialists.find((p) => p.id === value.specialistId);
    if (!specialist || !service.specialistIds.includes(specialist.id)) throw new Refusal(ct.unknownSpecialist(n, value.specialistId));
    if (!ISO_WITH_OFFSET.test(value.datetime) || !isIsoInstant(value.datetime)) throw new Refusal(ct.badDatetime(n));
    // Free now, as find_slots reads it (the booking service's cache): a time made up or taken is refused.
    const key = `${value.datetime.slice(0, 10)} ${specialist.id} ${service.id}`;
    if (!free.has(key)) {
      free.set(
        key,
        deps.booking
          .slots(agent.id, { date: value.datetime.slice(0, 10), specialistId: specialist.id, serviceId: service.id })
          .then((day) => day.map((s) => s.datetime)),
      );
    }
    const times = await free.get(key)!;
    if (!times.some((t) => Date.parse(t) === Date.parse(value.datetime))) throw new Refusal(ct.notFree(n));
    const payload = slotPayload({ serviceId: service.id, specialistId: specialist.id, datetime: value.datetime });
    if (!fits(payload)) throw new Refusal(ct.idsTooLong(n));
    return callbackButton(label, payload, 'positive');
  }

  const tool: AssistantTool = {
    name: OFFER_CHOICES_TOOL,
    description: ct.description(CHOICE_LIMITS.buttons, CHOICE_LIMITS.labelChars),
    parameters: {
      type: 'object',
      properties: {
        text: { type: 'string', description: ct.argText },
        choices: {
          type: 'array',
          description: ct.argChoices,
          maxItems: CHOICE_LIMITS.buttons,
          items: {
            type: 'object',
            properties: {
              label: { type: 'string', description: ct.argLabel },
              value: {
                description: ct.argValue,
                anyOf: [
                  { type: 'string' },
                  {
                    type: 'object',
                    properties: { serviceId: { type: 'string' }, specialistId: { type: 'string' }, datetime: { type: 'string' } },
                    required: ['serviceId', 'specialistId', 'datetime'],
                    additionalProperties: false,
                  },
                  { type: 'object', properties: { serviceId: { type: 'string' } }, required: ['serviceId'], additionalProperties: false },
                  { type: 'object', properties: { productId: { type: 'string' } }, required: ['productId'], additionalProperties: false },
                ],
              },
            },
            required: ['label', 'value'],
            additionalProperties: false,
          },
        },
      },
      required: ['text', 'choices'],
      additionalProperties: false,
    },
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
      const parsed = offerArgs.safeParse(args);
      if (!parsed.success) return refused(ct.badArguments(parsed.error.issues[0]?.path.join('.') ?? ''));
      const text = clean(parsed.data.text).trim();
      if (text === '') return refused(ct.badArguments('text'));
      // Too many is refused, not cut: the model knows best which ten to keep.
      if (parsed.data.choices.length > CHOICE_LIMITS.buttons) return refused(ct.tooMany(CHOICE_LIMITS.buttons));
      const free = new Map<string, Promise<string[]>>();
      const buttons: CallbackButton[] = [];
      try {
        for (const [i, item] of parsed.data.choices.entries()) buttons.push(await buttonOf(ctx.agent, item, i + 1, free));
      } catch (error) {
        if (error instanceof Refusal) return refused(error.message);
        return refused(ct.readFailed);
      }
      return {
        result: { ok: true, shown: buttons.map((b) => b.label) },
        summary: ct.summaryOffered(buttons.map((b) => b.label)),
        answer: { text, buttons: choiceRows(buttons) },
        outcome: 'choices_offered',
      };
    },
  };

  return {
    async toolsFor() {
      return { tools: [tool], missing: [] };
    },
  };
}
