// Booking in the dialogue of a Service agent: specialists → service → a free time → name → phone →
// the appointment, through the same booking service (and the same double-booking guard) as the API.
import type { Agent } from '../agents';
import type { Database } from '../db/client';
import { isIsoInstant } from '../http/date-input';
import { AppError } from '../http/errors';
import type { Logger } from '../logger';
import type { BookingService, BookableService, FreeSlot, Specialist, BookingSettings } from '../integrations/booking';
import { normalisePhone } from '../phone';
import { choiceTexts as ct } from './choice-texts';
import type { DialogueRow, Flow, Say, SetFlow } from './flow';
import { flowTexts as ft, showPhone } from './flow-texts';
import { ACTIONS, cancelKeyboard, confirmKeyboard, mainMenu } from './menus';
import { callbackButton, dataLabel, type ButtonPayload, type ReplyButton, type ReplyButtons } from './reply';
import { myBookingsTexts as mt } from './my-bookings-texts';
import { REMINDER_ACTIONS } from './reminders';
import { assistantTexts as t, formatSlot, formatSlotShort } from './texts';
import { intentOf, isNo, isYes, nameOf, refusesPhone } from './turn-intent';

/** How far ahead free times are looked for. */
const SEARCH_DAYS = 14;
/** Inline keyboards hold 10 buttons: 8 choices, then the menu row. */
const MAX_CHOICES = 8;
/** «Мои записи»: «Перенести» and «Отменить» for this many visits (6 buttons), then the menu's rows. */
const MAX_MINE_BUTTONS = 3;

export interface FlowTools {
  say: Say;
  setFlow: SetFlow;
}

type BookingStep = Extract<Flow, { step: 'booking_name' | 'booking_phone' | 'booking_confirm' }>;

/** Up to eight choices two to a row, then the way back to the menu. */
function choices(buttons: ReplyButton[]): ReplyButtons {
  const rows: ReplyButtons = [];
  for (let i = 0; i < buttons.length && i < MAX_CHOICES; i += 2) rows.push(buttons.slice(i, Math.min(i + 2, MAX_CHOICES)));
  rows.push([callbackButton(t.buttonMenu, { action: ACTIONS.menu }, 'secondary')]);
  return rows;
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export interface BookingFlowDeps {
  /** Where the flow's own writes go (the dialogue's state) outside any caller's transaction. */
  flowDb: Database;
  booking: BookingService;
  settings: Pick<BookingSettings, 'load'>;
  outbox: { wake(): void };
  logger: Logger;
  /** Today's date (YYYY-MM-DD) from which free times are looked for. */
  today?: () => string;
}

export function createBookingFlow(deps: BookingFlowDeps) {
  const { booking, logger } = deps;
  const today = deps.today ?? (() => new Date().toISOString().slice(0, 10));

  async function available(agent: Agent, dialogue: DialogueRow, tools: FlowTools): Promise<boolean> {
    if (agent.type === 'service' && (await deps.settings.load(agent.id).catch(() => null))) return true;
    await tools.say(dialogue, t.bookingUnavailable, mainMenu(agent.type));
    return false;
  }

  /** Runs a booking-system read; on failure tells the client and returns null. */
  async function read<T>(dialogue: DialogueRow, agent: Agent, tools: FlowTools, run: () => Promise<T>): Promise<T | null> {
    try {
      return await run();
    } catch (error) {
      logger.warn('booking read failed in dialogue', { agentId: agent.id, error });
      await tools.say(dialogue, t.bookingFailed, mainMenu(agent.type));
      return null;
    }
  }

  async function offerSpecialists(agent: Agent, dialogue: DialogueRow, tools: FlowTools, listOnly: boolean, intro?: string): Promise<string> {
    const specialists = await read(dialogue, agent, tools, () => booking.specialists(agent.id));
    if (!specialists) return 'booking_failed';
    if (specialists.length === 0) {
      await tools.say(dialogue, t.noSpecialists, mainMenu(agent.type));
      return 'no_specialists';
    }
    if (!listOnly && specialists.length === 1) return offerServices(agent, dialogue, tools, specialists[0]!.id);
    const buttons = specialists.map((s) => callbackButton(dataLabel(s.name), { action: ACTIONS.pickSpecialist, s: s.id }, 'primary'));
    const text = listOnly
      ? t.specialistsList(specialists.map((s) => `• ${s.name}${s.specialization ? ` — ${s.specialization}` : ''}`))
      : (intro ?? t.chooseSpecialist);
    await tools.say(dialogue, text, choices(buttons));
    return listOnly ? 'specialists' : 'choose_specialist';
  }

  async function offerServices(agent: Agent, dialogue: DialogueRow, tools: FlowTools, specialistId: string): Promise<string> {
    const found = await read(dialogue, agent, tools, async () => {
      const [specialists, services] = await Promise.all([booking.specialists(agent.id), booking.services(agent.id)]);
      return { specialist: specialists.find((s) => s.id === specialistId), services };
    });
    if (!found) return 'booking_failed';
    if (!found.specialist) return offerSpecialists(agent, dialogue, tools, false);
    const theirs = found.services.filter((v) => v.specialistIds.includes(specialistId));
    if (theirs.length === 0) {
      await tools.say(dialogue, t.noServices, mainMenu(agent.type));
      return 'no_services';
    }
    const buttons = theirs.map((v) => callbackButton(dataLabel(v.title), { action: ACTIONS.pickService, s: specialistId, v: v.id }, 'primary'));
    await tools.say(dialogue, t.chooseService(found.specialist.name), choices(buttons));
    return 'choose_service';
  }

  async function names(agent: Agent, specialistId: string, serviceId: string): Promise<{ specialist?: Specialist; service?: BookableService }> {
    const [specialists, services] = await Promise.all([booking.specialists(agent.id), booking.services(agent.id)]);
    return { specialist: specialists.find((s) => s.id === specialistId), service: services.find((v) => v.id === serviceId) };
  }

  async function offerSlots(
    agent: Agent,
    dialogue: DialogueRow,
    tools: FlowTools,
    specialistId: string,
    serviceId: string,
    intro?: string,
    /** The appointment being moved: its time buttons lead to the move's summary, not to a new booking. */
    reschedule?: { appointmentId: string; intro: (service: string, specialist: string) => string },
  ): Promise<string> {
    const found = await read(dialogue, agent, tools, async () => {
      const slots: FreeSlot[] = [];
      const start = today();
      for (let d = 0; d < SEARCH_DAYS && slots.length < MAX_CHOICES; d++) {
        const day = await booking.slots(agent.id, { date: addDays(start, d), specialistId, serviceId });
        slots.push(...day.slice(0, MAX_CHOICES - slots.length));
      }
      return { slots, ...(await names(agent, specialistId, serviceId)) };
    });
    if (!found) return 'booking_failed';
    if (found.slots.length === 0) {
      await tools.say(dialogue, t.noSlots, mainMenu(agent.type));
      return 'no_slots';
    }
    const buttons = found.slots.map((slot) =>
      callbackButton(
        formatSlotShort(slot.datetime),
        { action: ACTIONS.pickSlot, s: specialistId, v: serviceId, t: slot.datetime, ...(reschedule ? { r: reschedule.appointmentId } : {}) },
        'positive',
      ),
    );
    const specialistName = found.specialist?.name ?? specialistId;
    const serviceTitle = found.service?.title ?? serviceId;
    const text = intro ?? (reschedule ? reschedule.intro(serviceTitle, specialistName) : t.chooseSlot(specialistName, serviceTitle));
    await tools.say(dialogue, text, choices(buttons));
    return 'choose_slot';
  }

  async function book(agent: Agent, dialogue: DialogueRow, tools: FlowTools, step: BookingStep & { clientName: string }, phone: string): Promise<string> {
    const clear = (executor: Parameters<SetFlow>[0]) => tools.setFlow(executor, dialogue.id, null, { clientPhone: phone, clientName: step.clientName });
    try {
      const booked = await booking.book(
        agent.id,
        { specialistId: step.specialistId, serviceId: step.serviceId, datetime: step.datetime, clientName: step.clientName, clientPhone: phone },
        { source: 'button', dialogueId: dialogue.id },
      );
      const { specialist, service } = await names(agent, step.specialistId, step.serviceId).catch(() => ({}) as Awaited<ReturnType<typeof names>>);
      await deps.flowDb.transaction(async (tx) => {
        await clear(tx);
        await tools.say(
          dialogue,
          t.booked({
            name: step.clientName,
            service: service?.title ?? step.serviceId,
            specialist: specialist?.name ?? step.specialistId,
            when: formatSlot(booked.datetime),
          }),
          withReschedule(agent, booked.id),
          tx,
        );
      });
      deps.outbox.wake();
      return 'booked';
    } catch (error) {
      await clear(deps.flowDb);
      if (error instanceof AppError && error.type === 'conflict') {
        // A keyboard shown earlier can offer a time that has passed since; the service refuses it as a conflict.
        const passed = Date.parse(step.datetime) <= Date.now();
        return offerSlots(agent, dialogue, tools, step.specialistId, step.serviceId, passed ? t.slotPassed : t.slotTaken);
      }
      logger.warn('booking from the dialogue failed', { agentId: agent.id, error });
      await tools.say(dialogue, t.bookingFailed, mainMenu(agent.type));
      return 'booking_failed';
    }
  }

  /** The main menu with «Перенести» above it, under a booking just made or moved. */
  function withReschedule(agent: Agent, appointmentId: string): ReplyButtons {
    return [[callbackButton(ft.buttonReschedule, { action: ACTIONS.reschedule, a: appointmentId }, 'primary')], ...mainMenu(agent.type)];
  }

  /** The client's own upcoming appointment, `own` null when there is none (cancelled, past, or someone else's). */
  async function ownAppointment(agent: Agent, dialogue: DialogueRow, appointmentId: string) {
    return { own: (await booking.appointmentsOf(agent.id, dialogue.id)).find((a) => a.id === appointmentId) ?? null };
  }

  /** «Перенести»: the free times of the same specialist and service, each leading to the move's summary. */
  async function offerNewTimes(agent: Agent, dialogue: DialogueRow, tools: FlowTools, appointmentId: string, intro?: string): Promise<string> {
    const found = await read(dialogue, agent, tools, () => ownAppointment(agent, dialogue, appointmentId));
    if (!found) return 'booking_failed';
    const { own } = found;
    if (!own) {
      await tools.setFlow(deps.flowDb, dialogue.id, null);
      await tools.say(dialogue, ft.appointmentGone, mainMenu(agent.type));
      return 'appointment_gone';
    }
    return offerSlots(agent, dialogue, tools, own.specialistId, own.serviceId, intro, {
      appointmentId,
      intro: (service, specialist) => ft.chooseNewSlot(service, specialist, formatSlot(own.datetime)),
    });
  }

  async function rescheduleSummary(agent: Agent, dialogue: DialogueRow, tools: FlowTools, flow: Extract<Flow, { step: 'reschedule_confirm' }>): Promise<string> {
    const found = await read(dialogue, agent, tools, () => names(agent, flow.specialistId, flow.serviceId));
    if (!found) return 'booking_failed';
    await tools.setFlow(deps.flowDb, dialogue.id, flow);
    await tools.say(
      dialogue,
      ft.rescheduleSummary({
        service: found.service?.title ?? flow.serviceId,
        specialist: found.specialist?.name ?? flow.specialistId,
        before: formatSlot(flow.previous),
        after: formatSlot(flow.datetime),
      }),
      confirmKeyboard(),
    );
    return 'reschedule_summary';
  }

  /** The confirmed move: YCLIENTS' PUT /record through the booking service; a time taken meanwhile offers others. */
  async function reschedule(agent: Agent, dialogue: DialogueRow, tools: FlowTools, flow: Extract<Flow, { step: 'reschedule_confirm' }>): Promise<string> {
    await tools.setFlow(deps.flowDb, dialogue.id, null);
    try {
      const moved = await booking.reschedule(agent.id, flow.appointmentId, dialogue.id, { datetime: flow.datetime });
      if (!moved) {
        await tools.say(dialogue, ft.appointmentGone, mainMenu(agent.type));
        return 'appointment_gone';
      }
      const found = await names(agent, flow.specialistId, flow.serviceId).catch(() => ({}) as Awaited<ReturnType<typeof names>>);
      await tools.say(
        dialogue,
        ft.rescheduled({
          service: found.service?.title ?? flow.serviceId,
          specialist: found.specialist?.name ?? flow.specialistId,
          before: formatSlot(moved.before.datetime),
          after: formatSlot(moved.after.datetime),
        }),
        withReschedule(agent, flow.appointmentId),
      );
      return 'rescheduled';
    } catch (error) {
      if (error instanceof AppError && error.type === 'conflict') {
        const passed = Date.parse(flow.datetime) <= Date.now();
        return offerNewTimes(agent, dialogue, tools, flow.appointmentId, passed ? t.slotPassed : t.slotTaken);
      }
      logger.warn('reschedule from the dialogue failed', { agentId: agent.id, error });
      await tools.say(dialogue, t.bookingFailed, mainMenu(agent.type));
      return 'booking_failed';
    }
  }

  /** The booking's summary with «Подтвердить» / «Изменить»: nothing is booked before the client confirms. */
  async function summarise(agent: Agent, dialogue: DialogueRow, tools: FlowTools, step: BookingStep & { clientName: string }, phone: string): Promise<string> {
    const confirm: Flow = {
      step: 'booking_confirm',
      specialistId: step.specialistId,
      serviceId: step.serviceId,
      datetime: step.datetime,
      clientName: step.clientName,
      clientPhone: phone,
    };
    const found = await read(dialogue, agent, tools, () => names(agent, step.specialistId, step.serviceId));
    if (!found) return 'booking_failed';
    await tools.setFlow(deps.flowDb, dialogue.id, confirm);
    await tools.say(
      dialogue,
      ft.bookingSummary({
        service: found.service?.title ?? step.serviceId,
        specialist: found.specialist?.name ?? step.specialistId,
        when: formatSlot(step.datetime),
        name: step.clientName,
        phone: showPhone(phone),
      }),
      confirmKeyboard(),
    );
    return 'booking_summary';
  }

  /**
   * A free time tapped under the model's answer (offer_choices, find_slots): checked again now — the salon
   * may have dropped the service or the specialist, or the time been taken, since the button was shown —
   * then the name and phone when the dialogue does not know them, then the summary with «Подтвердить».
   */
  async function chosenSlot(
    agent: Agent,
    dialogue: DialogueRow,
    tools: FlowTools,
    specialistId: string,
    serviceId: string,
    datetime: string,
    /** «Записаться ещё раз» pressed: the client has been asked about their visit already. */
    another = false,
  ): Promise<string> {
    const found = await read(dialogue, agent, tools, () => names(agent, specialistId, serviceId));
    if (!found) return 'booking_failed';
    const { specialist, service } = found;
    if (!specialist || !service?.specialistIds.includes(specialist.id) || !isIsoInstant(datetime) || !datetime.includes('T')) {
      await tools.setFlow(deps.flowDb, dialogue.id, null);
      return offerSpecialists(agent, dialogue, tools, false, ct.choiceGone);
    }
    const free = await read(dialogue, agent, tools, () => booking.slots(agent.id, { date: datetime.slice(0, 10), specialistId, serviceId }));
    if (!free) return 'booking_failed';
    if (!free.some((slot) => Date.parse(slot.datetime) === Date.parse(datetime))) {
      await tools.setFlow(deps.flowDb, dialogue.id, null);
      return offerSlots(agent, dialogue, tools, specialistId, serviceId, Date.parse(datetime) <= Date.now() ? t.slotPassed : t.slotTaken);
    }
    if (!another) {
      // Times found to move a visit look like any others: a client with a visit of this service and
      // specialist is asked whether to move it or book one more, as an administrator would.
      const mine = await read(dialogue, agent, tools, () => booking.appointmentsOf(agent.id, dialogue.id));
      if (!mine) return 'booking_failed';
      const visit = mine.find((a) => a.serviceId === serviceId && a.specialistId === specialistId);
      if (visit) {
        const slot = { s: specialistId, v: serviceId, t: datetime };
        await tools.setFlow(deps.flowDb, dialogue.id, null);
        await tools.say(
          dialogue,
          ct.moveOrNew({ service: service.title, specialist: specialist.name, before: formatSlot(visit.datetime), after: formatSlot(datetime) }),
          [
            [callbackButton(ct.buttonMove, { action: ACTIONS.pickSlot, ...slot, r: visit.id }, 'primary')],
            [callbackButton(ct.buttonNew, { action: ACTIONS.choiceSlot, ...slot, n: 1 }, 'positive')],
            [callbackButton(ft.buttonCancel, { action: ACTIONS.cancelFlow }, 'negative')],
          ],
        );
        return 'move_or_new';
      }
    }
    const step = { step: 'booking_name' as const, specialistId, serviceId, datetime };
    if (dialogue.clientName && dialogue.clientPhone) return summarise(agent, dialogue, tools, { ...step, clientName: dialogue.clientName }, dialogue.clientPhone);
    if (dialogue.clientName) {
      await tools.setFlow(deps.flowDb, dialogue.id, { ...step, step: 'booking_phone', clientName: dialogue.clientName });
      await tools.say(dialogue, ft.askBookingPhone, cancelKeyboard());
      return 'ask_phone';
    }
    await tools.setFlow(deps.flowDb, dialogue.id, step);
    await tools.say(dialogue, ft.askName, cancelKeyboard());
    return 'ask_name';
  }

  /** A service tapped under the model's answer: its one specialist's free times, or the choice of who provides it. */
  async function chosenService(agent: Agent, dialogue: DialogueRow, tools: FlowTools, serviceId: string): Promise<string> {
    const found = await read(dialogue, agent, tools, async () => {
      const [specialists, services] = await Promise.all([booking.specialists(agent.id), booking.services(agent.id)]);
      return { specialists, service: services.find((v) => v.id === serviceId) };
    });
    if (!found) return 'booking_failed';
    await tools.setFlow(deps.flowDb, dialogue.id, null);
    const { service } = found;
    if (!service) return offerSpecialists(agent, dialogue, tools, false, ct.choiceGone);
    const providers = found.specialists.filter((p) => service.specialistIds.includes(p.id));
    if (providers.length === 0) {
      await tools.say(dialogue, t.noSpecialists, mainMenu(agent.type));
      return 'no_specialists';
    }
    if (providers.length === 1) return offerSlots(agent, dialogue, tools, providers[0]!.id, service.id);
    const buttons = providers.map((p) => callbackButton(dataLabel(p.name), { action: ACTIONS.pickService, s: p.id, v: service.id }, 'primary'));
    await tools.say(dialogue, ct.chooseProvider(service.title), choices(buttons));
    return 'choose_specialist';
  }

  /**
   * «Мои записи»: the upcoming visits of the dialogue's client (with the owner's matching on, those made in the salon
   * for the client's phone and name are linked first; YCLIENTS unreachable leaves the dialogue's own), each with
   * «Перенести» and «Отменить» (which asks before cancelling).
   */
  async function showMine(agent: Agent, dialogue: DialogueRow, tools: FlowTools): Promise<string> {
    await booking.matchClientRecords(agent.id, dialogue.id);
    const mine = await booking.appointmentsOf(agent.id, dialogue.id);
    if (mine.length === 0) {
      await tools.say(dialogue, mt.none, mainMenu(agent.type));
      return 'my_bookings_none';
    }
    const [specialists, services] = await Promise.all([booking.specialists(agent.id).catch(() => []), booking.services(agent.id).catch(() => [])]);
    const items = mine.map((a) => ({
      when: formatSlot(a.datetime),
      service: services.find((v) => v.id === a.serviceId)?.title ?? a.serviceId,
      specialist: specialists.find((p) => p.id === a.specialistId)?.name ?? a.specialistId,
    }));
    const rows: ReplyButtons = mine
      .slice(0, MAX_MINE_BUTTONS)
      .map((a) => [
        callbackButton(mt.buttonReschedule(formatSlotShort(a.datetime)), { action: ACTIONS.reschedule, a: a.id }, 'primary'),
        callbackButton(mt.buttonCancel(formatSlotShort(a.datetime)), { action: REMINDER_ACTIONS.cancel, a: a.id }, 'negative'),
      ]);
    await tools.say(dialogue, mt.list(items), [...rows, ...mainMenu(agent.type).slice(-1)]);
    return 'my_bookings';
  }

  async function canceled(agent: Agent, dialogue: DialogueRow, tools: FlowTools): Promise<string> {
    await tools.setFlow(deps.flowDb, dialogue.id, null);
    await tools.say(dialogue, ft.bookingCanceled, mainMenu(agent.type));
    return 'booking_canceled';
  }

  return {
    /** The step's question again, after a question in the middle of it was answered. */
    async resume(agent: Agent, dialogue: DialogueRow, flow: Flow, tools: FlowTools): Promise<string | null> {
      if (flow.step === 'booking_name') {
        await tools.say(dialogue, ft.askName, cancelKeyboard());
        return 'ask_name';
      }
      if (flow.step === 'booking_phone') {
        await tools.say(dialogue, ft.askBookingPhone, cancelKeyboard());
        return 'ask_phone';
      }
      if (flow.step === 'booking_confirm') return summarise(agent, dialogue, tools, flow, flow.clientPhone);
      if (flow.step === 'reschedule_confirm') return rescheduleSummary(agent, dialogue, tools, flow);
      return null;
    },

    /** «Подтвердить» / «Изменить» under the booking's summary; null when no booking summary is open. */
    async answerSummary(agent: Agent, dialogue: DialogueRow, confirmed: boolean, tools: FlowTools): Promise<string | null> {
      const flow = dialogue.flow as Flow | null;
      if (flow?.step === 'reschedule_confirm') {
        return confirmed ? reschedule(agent, dialogue, tools, flow) : offerNewTimes(agent, dialogue, tools, flow.appointmentId);
      }
      if (flow?.step !== 'booking_confirm') return null;
      if (confirmed) return book(agent, dialogue, tools, flow, flow.clientPhone);
      // «Изменить»: the choice starts again, the name and phone typed so far kept for the dialogue.
      await tools.setFlow(deps.flowDb, dialogue.id, null);
      return offerSpecialists(agent, dialogue, tools, false);
    },

    /** A button of the booking flow; anything it does not know gets the main menu. */
    async act(agent: Agent, dialogue: DialogueRow, payload: ButtonPayload, tools: FlowTools): Promise<string> {
      const str = (key: string) => (typeof payload[key] === 'string' ? (payload[key] as string) : '');
      switch (payload.action) {
        case ACTIONS.book:
          if (!(await available(agent, dialogue, tools))) return 'booking_unavailable';
          await tools.setFlow(deps.flowDb, dialogue.id, null);
          return offerSpecialists(agent, dialogue, tools, false);
        case ACTIONS.specialists:
          if (!(await available(agent, dialogue, tools))) return 'booking_unavailable';
          return offerSpecialists(agent, dialogue, tools, true);
        case ACTIONS.pickSpecialist:
          if (!(await available(agent, dialogue, tools))) return 'booking_unavailable';
          return offerServices(agent, dialogue, tools, str('s'));
        case ACTIONS.pickService:
          if (!(await available(agent, dialogue, tools))) return 'booking_unavailable';
          return offerSlots(agent, dialogue, tools, str('s'), str('v'));
        case ACTIONS.reschedule:
          if (!(await available(agent, dialogue, tools))) return 'booking_unavailable';
          return offerNewTimes(agent, dialogue, tools, str('a'));
        case ACTIONS.myBookings:
          if (!(await available(agent, dialogue, tools))) return 'booking_unavailable';
          return showMine(agent, dialogue, tools);
        case ACTIONS.pickSlot: {
          if (!(await available(agent, dialogue, tools))) return 'booking_unavailable';
          if (str('r')) {
            const found = await read(dialogue, agent, tools, () => ownAppointment(agent, dialogue, str('r')));
            if (!found) return 'booking_failed';
            const { own } = found;
            if (!own) {
              await tools.say(dialogue, ft.appointmentGone, mainMenu(agent.type));
              return 'appointment_gone';
            }
            return rescheduleSummary(agent, dialogue, tools, {
              step: 'reschedule_confirm',
              appointmentId: own.id,
              specialistId: own.specialistId,
              serviceId: own.serviceId,
              datetime: str('t'),
              previous: own.datetime,
            });
          }
          await tools.setFlow(deps.flowDb, dialogue.id, { step: 'booking_name', specialistId: str('s'), serviceId: str('v'), datetime: str('t') });
          await tools.say(dialogue, ft.askName, cancelKeyboard());
          return 'ask_name';
        }
        case ACTIONS.choiceSlot:
          if (!(await available(agent, dialogue, tools))) return 'booking_unavailable';
          return chosenSlot(agent, dialogue, tools, str('s'), str('v'), str('t'), payload.n === 1);
        case ACTIONS.choiceService:
          if (!(await available(agent, dialogue, tools))) return 'booking_unavailable';
          return chosenService(agent, dialogue, tools, str('v'));
        default:
          await tools.say(dialogue, t.menu, mainMenu(agent.type));
          return 'unknown_action';
      }
    },

    /**
     * A typed answer while the booking flow waits for a name, a phone or a confirmation. Cancel words end
     * the flow; a question (or a sentence that is not the datum) returns null: the dialogue gives it to the
     * model, told where the flow stands, and then asks the step's question again.
     */
    async continue(agent: Agent, dialogue: DialogueRow, flow: Flow, text: string, tools: FlowTools): Promise<string | null> {
      if (flow.step === 'reschedule_confirm') {
        if (isYes(text)) return reschedule(agent, dialogue, tools, flow);
        if (isNo(text)) return offerNewTimes(agent, dialogue, tools, flow.appointmentId);
        if (intentOf(text) === 'cancel') {
          await tools.setFlow(deps.flowDb, dialogue.id, null);
          await tools.say(dialogue, ft.rescheduleCanceled, mainMenu(agent.type));
          return 'reschedule_canceled';
        }
        if (/\p{L}/u.test(text)) return null;
        return rescheduleSummary(agent, dialogue, tools, flow);
      }
      if (flow.step !== 'booking_name' && flow.step !== 'booking_phone' && flow.step !== 'booking_confirm') return null;
      if (flow.step === 'booking_name') {
        const name = nameOf(text);
        if (name) {
          const withName = { ...flow, step: 'booking_phone' as const, clientName: name };
          if (dialogue.clientPhone) return summarise(agent, dialogue, tools, withName, dialogue.clientPhone);
          await tools.setFlow(deps.flowDb, dialogue.id, withName);
          await tools.say(dialogue, ft.askBookingPhone, cancelKeyboard());
          return 'ask_phone';
        }
      }
      if (flow.step === 'booking_phone') {
        const phone = normalisePhone(text);
        if (phone) return summarise(agent, dialogue, tools, flow, phone);
      }
      if (flow.step === 'booking_confirm' && isYes(text)) return book(agent, dialogue, tools, flow, flow.clientPhone);
      if (flow.step === 'booking_confirm' && isNo(text)) {
        await tools.setFlow(deps.flowDb, dialogue.id, null);
        return offerSpecialists(agent, dialogue, tools, false);
      }
      const intent = intentOf(text);
      if (intent === 'cancel') return canceled(agent, dialogue, tools);
      if (flow.step === 'booking_phone' && refusesPhone(text)) {
        await tools.say(dialogue, ft.bookingNeedsPhone, cancelKeyboard());
        return 'phone_required';
      }
      if (intent === 'question' || /\p{L}/u.test(text)) return null;
      if (flow.step === 'booking_name') {
        await tools.say(dialogue, ft.nameNotUnderstood, cancelKeyboard());
        return 'name_not_understood';
      }
      if (flow.step === 'booking_phone') {
        await tools.say(dialogue, t.phoneNotUnderstood, cancelKeyboard());
        return 'phone_not_understood';
      }
      return summarise(agent, dialogue, tools, flow, flow.clientPhone);
    },
  };
}

export type BookingFlow = ReturnType<typeof createBookingFlow>;
