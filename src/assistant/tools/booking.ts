// The booking tools of a Service agent with YCLIENTS connected (names and arguments: decisions.md, third
// round). They read through the booking service's cache and book through the same service, and so the
// same double-booking guard, as the API and the dialogue's buttons. A client sees and cancels only the
// appointments booked in their own dialogue.
import { eq } from 'drizzle-orm';
import type { Agent } from '../../agents';
import type { Database } from '../../db/client';
import { dialogues } from '../../dialogues/tables';
import { isCalendarDay, isIsoInstant } from '../../http/date-input';
import { AppError } from '../../http/errors';
import type { BookableService, BookingService, Specialist, BookingSettings } from '../../integrations/booking';
import { normalisePhone } from '../../phone';
import { assistantTexts, formatSlot } from '../texts';
import { choicesTexts } from './choices-texts';
import { slotChoiceButtons } from './choices';
import { stringArg, ToolError } from './index';
import { rescheduleTexts } from './reschedule-texts';
import { toolTexts } from './texts';
import type { DialogueRow } from '../flow';
import type { AssistantTool, ToolContext, ToolProvider, ToolResult } from './types';

export const BOOKING_TOOLS = [
  'list_services',
  'list_specialists',
  'find_slots',
  'book_appointment',
  'list_my_appointments',
  'cancel_appointment',
  'reschedule_appointment',
] as const;

/** Shown on the agent's page for a Service agent without YCLIENTS. */
const MISSING_REASON = 'подключите YCLIENTS';
/** How many free times a "taken" answer offers instead, and how many days ahead they are looked for. */
const NEXT_FREE_TIMES = 5;
const NEXT_FREE_DAYS = 7;
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/;

export interface BookingToolsDeps {
  db: Database;
  booking: BookingService;
  settings: Pick<BookingSettings, 'load'>;
  /** Config ASSISTANT_MAX_BOOKINGS_PER_CLIENT: upcoming appointments one client may have made in their dialogue. */
  maxBookingsPerClient?: number;
}

const DEFAULT_MAX_BOOKINGS_PER_CLIENT = 3;

interface Slot {
  serviceId: string;
  specialistId: string;
  specialistName: string;
  datetime: string;
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export function createBookingTools(deps: BookingToolsDeps): ToolProvider {
  const { booking } = deps;

  async function catalog(agentId: string): Promise<{ services: BookableService[]; specialists: Specialist[] }> {
    const [services, specialists] = await Promise.all([booking.services(agentId), booking.specialists(agentId)]);
    return { services, specialists };
  }

  function serviceOf(services: BookableService[], id: string): BookableService {
    const found = services.find((s) => s.id === id);
    if (!found) throw new ToolError(toolTexts.unknownService(id));
    return found;
  }

  function specialistOf(specialists: Specialist[], id: string): Specialist {
    const found = specialists.find((s) => s.id === id);
    if (!found) throw new ToolError(toolTexts.unknownSpecialist(id));
    return found;
  }

  /** Free starts of one day for a service: one specialist's, or every specialist's who provides it, in time order. */
  async function slotsOn(agentId: string, date: string, service: BookableService, specialists: Specialist[]): Promise<Slot[]> {
    const slots: Slot[] = [];
    for (const specialist of specialists) {
      const day = await booking.slots(agentId, { date, specialistId: specialist.id, serviceId: service.id });
      for (const s of day) slots.push({ serviceId: service.id, specialistId: specialist.id, specialistName: specialist.name, datetime: s.datetime });
    }
    return slots.sort((a, b) => Date.parse(a.datetime) - Date.parse(b.datetime) || a.specialistId.localeCompare(b.specialistId));
  }

  /** The next free times of one specialist and service from `date` on, the taken one left out. */
  async function nextFreeTimes(agentId: string, date: string, service: BookableService, specialist: Specialist, taken: string) {
    const found: Slot[] = [];
    for (let d = 0; d < NEXT_FREE_DAYS && found.length < NEXT_FREE_TIMES; d++) {
      const day = await slotsOn(agentId, addDays(date, d), service, [specialist]).catch(() => []);
      for (const slot of day) {
        if (Date.parse(slot.datetime) <= Date.parse(taken) && d === 0) continue;
        if (found.length < NEXT_FREE_TIMES) found.push(slot);
      }
    }
    return found.map(({ serviceId, specialistId, datetime }) => ({ serviceId, specialistId, datetime }));
  }

  const providers = (service: BookableService, specialists: Specialist[]) => specialists.filter((p) => service.specialistIds.includes(p.id));

  const tools: AssistantTool[] = [
    {
      name: 'list_services',
      description: 'Услуги салона для онлайн-записи: serviceId, название, цена (от и до, в рублях), длительность в минутах и specialistIds — кто оказывает.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      async run(_args, ctx) {
        const services = await booking.services(ctx.agent.id);
        return {
          result: {
            services: services.map((s) => ({
              serviceId: s.id,
              title: s.title,
              priceMin: s.priceMin,
              priceMax: s.priceMax,
              durationMinutes: s.durationMinutes,
              specialistIds: s.specialistIds,
            })),
          },
          summary: toolTexts.summaryServices(services.length),
        };
      },
    },
    {
      name: 'list_specialists',
      description: 'Специалисты салона: specialistId, имя, специализация. С serviceId — только те, кто оказывает эту услугу.',
      parameters: {
        type: 'object',
        properties: { serviceId: { type: 'string', description: 'serviceId из list_services (необязательно)' } },
        additionalProperties: false,
      },
      async run(args, ctx) {
        const serviceId = stringArg(args, 'serviceId');
        const { services, specialists } = await catalog(ctx.agent.id);
        const list = serviceId ? providers(serviceOf(services, serviceId), specialists) : specialists;
        return {
          result: {
            specialists: list.map((p) => ({ specialistId: p.id, name: p.name, specialization: p.specialization, position: p.position })),
          },
          summary: toolTexts.summarySpecialists(list.length),
        };
      },
    },
    {
      name: 'find_slots',
      description:
        'Свободное время на дату для записи. Без specialistId — у всех специалистов, кто оказывает услугу. Каждый элемент: serviceId, specialistId, datetime (передайте его в book_appointment без изменений).',
      parameters: {
        type: 'object',
        properties: {
          date: { type: 'string', description: 'Дата YYYY-MM-DD' },
          serviceId: { type: 'string', description: 'serviceId из list_services' },
          specialistId: { type: 'string', description: 'specialistId из list_specialists (необязательно)' },
        },
        required: ['date'],
        additionalProperties: false,
      },
      async run(args, ctx) {
        const date = stringArg(args, 'date', true);
        if (!isCalendarDay(date)) throw new ToolError(toolTexts.badDate);
        const serviceId = stringArg(args, 'serviceId');
        const specialistId = stringArg(args, 'specialistId');
        const { services, specialists } = await catalog(ctx.agent.id);
        const specialist = specialistId ? specialistOf(specialists, specialistId) : null;
        let service: BookableService;
        if (serviceId) service = serviceOf(services, serviceId);
        else {
          // Free time depends on the service's length: without one, only an unambiguous choice will do.
          const candidates = specialist ? services.filter((s) => s.specialistIds.includes(specialist.id)) : services;
          if (candidates.length !== 1) {
            return {
              result: { error: toolTexts.chooseService, services: candidates.map((s) => ({ serviceId: s.id, title: s.title })) },
              summary: toolTexts.summaryError(toolTexts.chooseService),
            };
          }
          service = candidates[0]!;
        }
        if (specialist && !service.specialistIds.includes(specialist.id)) {
          throw new ToolError(toolTexts.specialistWithoutService(specialist.id, service.id));
        }
        const slots = await slotsOn(ctx.agent.id, date, service, specialist ? [specialist] : providers(service, specialists));
        // The times become buttons under the model's answer (tapped: the booking's summary, then «Подтвердить»).
        const buttons = slotChoiceButtons(slots);
        const shown = buttons ? buttons.flat().length : 0;
        return {
          result: { date, slots, ...(shown > 0 ? { note: choicesTexts.slotsNote(shown) } : {}) },
          summary: toolTexts.summarySlots(date, slots.length),
          answerButtons: buttons,
        };
      },
    },
    {
      name: 'book_appointment',
      description:
        'Записать клиента сразу (без подтверждения). Время берите из find_slots. Нужны имя и телефон клиента — спросите их, если не знаете. Если время уже заняли, ответ скажет об этом и предложит ближайшие свободные (nextFreeTimes). Перенос существующей записи — reschedule_appointment, не новая запись.',
      parameters: {
        type: 'object',
        properties: {
          serviceId: { type: 'string' },
          specialistId: { type: 'string' },
          datetime: { type: 'string', description: 'Время из find_slots, например 2026-12-01T15:00:00+03:00' },
          clientName: { type: 'string', description: 'Имя клиента' },
          clientPhone: { type: 'string', description: 'Телефон клиента, например +7 916 123-45-67' },
        },
        required: ['serviceId', 'specialistId', 'datetime', 'clientName', 'clientPhone'],
        additionalProperties: false,
      },
      run: (args, ctx) => bookAppointment(args, ctx),
    },
    {
      name: 'list_my_appointments',
      description:
        'Предстоящие записи этого клиента (сделанные в этом диалоге, а если владелец включил — и сделанные в салоне на его телефон и имя): appointmentId, услуга, специалист, время.',
      parameters: { type: 'object', properties: {}, additionalProperties: false },
      async run(_args, ctx) {
        // With the owner's matching on, the client's records made elsewhere join the list first (bounded; never throws for YCLIENTS).
        await booking.matchClientRecords(ctx.agent.id, ctx.dialogue.id);
        const mine = await booking.appointmentsOf(ctx.agent.id, ctx.dialogue.id);
        const { services, specialists } = mine.length > 0 ? await catalog(ctx.agent.id) : { services: [], specialists: [] };
        return {
          result: {
            appointments: mine.map((a) => ({
              appointmentId: a.id,
              serviceId: a.serviceId,
              serviceTitle: services.find((s) => s.id === a.serviceId)?.title ?? null,
              specialistId: a.specialistId,
              specialistName: specialists.find((p) => p.id === a.specialistId)?.name ?? null,
              datetime: a.datetime,
              clientName: a.clientName,
              // Made in the salon (a phone call, the widget) and linked by the client's phone and name.
              ...(a.matched ? { madeInSalon: true } : {}),
            })),
          },
          summary: toolTexts.summaryMyAppointments(mine.length),
        };
      },
    },
    {
      name: 'cancel_appointment',
      description: 'Отменить запись клиента по appointmentId из list_my_appointments (только его собственную). Для переноса есть reschedule_appointment.',
      parameters: {
        type: 'object',
        properties: { appointmentId: { type: 'string' } },
        required: ['appointmentId'],
        additionalProperties: false,
      },
      async run(args, ctx) {
        const appointmentId = stringArg(args, 'appointmentId', true);
        const canceled = await booking.cancel(ctx.agent.id, appointmentId, ctx.dialogue.id);
        if (!canceled) return { result: { error: toolTexts.notOwnAppointment }, summary: toolTexts.summaryCancelRefused };
        // Names for the client's notice; a catalog that cannot be read now leaves the ids out, not the notice.
        const { services, specialists } = await catalog(ctx.agent.id).catch(() => ({ services: [] as BookableService[], specialists: [] as Specialist[] }));
        return {
          result: { status: 'canceled', appointmentId: canceled.id, datetime: canceled.datetime, note: toolTexts.announcedNote },
          summary: toolTexts.summaryCanceled(canceled.datetime),
          announce: {
            text: assistantTexts.bookingCanceled({
              service: services.find((x) => x.id === canceled.serviceId)?.title ?? canceled.serviceId,
              specialist: specialists.find((x) => x.id === canceled.specialistId)?.name ?? canceled.specialistId,
              when: formatSlot(canceled.datetime),
            }),
          },
        };
      },
    },
    {
      name: 'reschedule_appointment',
      description: rescheduleTexts.description,
      parameters: {
        type: 'object',
        properties: {
          appointmentId: { type: 'string', description: rescheduleTexts.argAppointmentId },
          datetime: { type: 'string', description: rescheduleTexts.argDatetime },
          specialistId: { type: 'string', description: rescheduleTexts.argSpecialistId },
        },
        required: ['appointmentId', 'datetime'],
        additionalProperties: false,
      },
      run: (args, ctx) => rescheduleAppointment(args, ctx),
    },
  ];

  /** reschedule_appointment: YCLIENTS' PUT /record through the booking service; the move is announced by the system. */
  async function rescheduleAppointment(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const appointmentId = stringArg(args, 'appointmentId', true);
    const datetime = stringArg(args, 'datetime', true);
    if (!ISO_WITH_OFFSET.test(datetime) || !isIsoInstant(datetime)) throw new ToolError(toolTexts.badDatetime);
    const specialistId = stringArg(args, 'specialistId');
    const { services, specialists } = await catalog(ctx.agent.id);
    if (specialistId) specialistOf(specialists, specialistId);
    const own = (await booking.appointmentsOf(ctx.agent.id, ctx.dialogue.id)).find((a) => a.id === appointmentId);
    if (!own) return { result: { error: toolTexts.notOwnAppointment }, summary: toolTexts.summaryCancelRefused };
    const service = serviceOf(services, own.serviceId);
    try {
      const moved = await booking.reschedule(ctx.agent.id, appointmentId, ctx.dialogue.id, { datetime, ...(specialistId ? { specialistId } : {}) });
      if (!moved) return { result: { error: toolTexts.notOwnAppointment }, summary: toolTexts.summaryCancelRefused };
      const specialist = specialists.find((p) => p.id === moved.after.specialistId);
      const announced = {
        service: service.title,
        specialist: specialist?.name ?? moved.after.specialistId,
        before: moved.before.datetime,
        after: moved.after.datetime,
      };
      return {
        result: {
          status: 'rescheduled',
          appointmentId,
          serviceTitle: service.title,
          specialistId: moved.after.specialistId,
          specialistName: specialist?.name ?? null,
          previousDatetime: moved.before.datetime,
          datetime: moved.after.datetime,
        },
        summary: rescheduleTexts.summaryRescheduled(moved.before.datetime, moved.after.datetime),
        announce: { text: rescheduleTexts.announce(announced) },
      };
    } catch (error) {
      if (!(error instanceof AppError && error.type === 'conflict')) throw error;
      const passed = Date.parse(datetime) <= Date.now();
      const specialist = specialistOf(specialists, specialistId ?? own.specialistId);
      const from = passed ? new Date().toISOString().slice(0, 10) : datetime.slice(0, 10);
      const next = await nextFreeTimes(ctx.agent.id, from, service, specialist, datetime);
      return {
        result: passed
          ? { status: 'passed', error: rescheduleTexts.slotPassed, datetime, nextFreeTimes: next }
          : { status: 'taken', error: rescheduleTexts.slotTaken, datetime, nextFreeTimes: next },
        summary: rescheduleTexts.summaryRefused(datetime),
      };
    }
  }

  async function bookAppointment(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const serviceId = stringArg(args, 'serviceId', true);
    const specialistId = stringArg(args, 'specialistId', true);
    const datetime = stringArg(args, 'datetime', true);
    if (!ISO_WITH_OFFSET.test(datetime) || !isIsoInstant(datetime)) throw new ToolError(toolTexts.badDatetime);
    const clientName = (stringArg(args, 'clientName') ?? '').replace(/\s+/g, ' ').slice(0, 100);
    if (!/\p{L}/u.test(clientName)) throw new ToolError(toolTexts.badName);
    const clientPhone = normalisePhone(stringArg(args, 'clientPhone') ?? '');
    if (!clientPhone) throw new ToolError(toolTexts.badPhone);
    const { services, specialists } = await catalog(ctx.agent.id);
    const service = serviceOf(services, serviceId);
    const specialist = specialistOf(specialists, specialistId);
    // A model stuck in a loop must not fill the salon's day: a client has at most so many upcoming visits.
    const maxBookings = deps.maxBookingsPerClient ?? DEFAULT_MAX_BOOKINGS_PER_CLIENT;
    // Visits linked from YCLIENTS (client matching) were not made here and do not count.
    const upcoming = (await booking.appointmentsOf(ctx.agent.id, ctx.dialogue.id)).filter((a) => !a.matched);
    if (upcoming.length >= maxBookings) {
      return {
        result: { status: 'limit', error: toolTexts.bookingLimit(maxBookings), appointments: upcoming.map((a) => ({ appointmentId: a.id, datetime: a.datetime })) },
        summary: toolTexts.summaryBookingLimit(maxBookings),
      };
    }
    try {
      const booked = await booking.book(
        ctx.agent.id,
        { serviceId, specialistId, datetime, clientName, clientPhone },
        { source: 'model', dialogueId: ctx.dialogue.id },
      );
      // The dialogue learns who the client is, as with the buttons: the phone is not asked again.
      await deps.db.update(dialogues).set({ clientPhone, clientName, updatedAt: new Date() }).where(eq(dialogues.id, ctx.dialogue.id));
      return {
        result: {
          status: 'booked',
          appointmentId: booked.id,
          serviceId,
          serviceTitle: service.title,
          specialistId,
          specialistName: specialist.name,
          datetime: booked.datetime,
          clientName,
          note: toolTexts.announcedNote,
        },
        summary: toolTexts.summaryBooked(service.title, specialist.name, booked.datetime, clientName),
        // The system tells the client, whatever the model says next (or if it says nothing).
        announce: { text: assistantTexts.booked({ service: service.title, specialist: specialist.name, when: formatSlot(booked.datetime), name: clientName }) },
      };
    } catch (error) {
      if (!(error instanceof AppError && error.type === 'conflict')) throw error;
      // The booking service refuses a time that has passed as a conflict too; the model is told which.
      const passed = Date.parse(datetime) <= Date.now();
      const from = passed ? new Date().toISOString().slice(0, 10) : datetime.slice(0, 10);
      const next = await nextFreeTimes(ctx.agent.id, from, service, specialist, datetime);
      // The nearest free times ride on the model's answer as buttons, as find_slots' do.
      const buttons = slotChoiceButtons(next.map((slot) => ({ ...slot, specialistName: specialist.name })));
      const note = buttons ? { note: choicesTexts.slotsNote(buttons.flat().length) } : {};
      return {
        result: passed
          ? { status: 'passed', error: toolTexts.slotPassed, datetime, nextFreeTimes: next, ...note }
          : { status: 'taken', error: toolTexts.slotTaken, datetime, nextFreeTimes: next, ...note },
        summary: (passed ? toolTexts.summaryPassed : toolTexts.summaryTaken)(datetime, next.length),
        answerButtons: buttons,
      };
    }
  }

  return {
    async clientFacts(agent: Agent, dialogue: DialogueRow) {
      if (agent.type !== 'service' || !(await deps.settings.load(agent.id).catch(() => null))) return [];
      const mine = await booking.appointmentsOf(agent.id, dialogue.id);
      if (mine.length === 0) return [];
      const { services, specialists } = await catalog(agent.id).catch(() => ({ services: [] as BookableService[], specialists: [] as Specialist[] }));
      return mine.map((a) =>
        toolTexts.factAppointment(
          services.find((x) => x.id === a.serviceId)?.title ?? a.serviceId,
          specialists.find((x) => x.id === a.specialistId)?.name ?? a.specialistId,
          a.datetime,
          a.id,
        ),
      );
    },
    async toolsFor(agent: Agent) {
      if (agent.type !== 'service') return { tools: [], missing: [] };
      const connected = await deps.settings.load(agent.id).catch(() => null);
      if (!connected) return { tools: [], missing: BOOKING_TOOLS.map((name) => ({ name, reason: MISSING_REASON })) };
      return { tools, missing: [] };
    },
  };
}
