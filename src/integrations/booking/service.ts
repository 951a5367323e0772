// The booking integration at work: specialists, services and free times read through the agent's
// mappings and the shared cache, and appointments booked so that one slot is never sold twice.
//
// Double booking is prevented in two places. YCLIENTS is asked fresh (never from cache) whether the
// time is free, and a local claim row is inserted under a unique index on agent + specialist + start
// before YCLIENTS is asked to book: of any number of concurrent requests, on any number of instances,
// one insert wins and the rest get 409 without reaching YCLIENTS. A failed booking deletes its claim,
// so no local row ever says "booked" for a booking that does not exist.
import { and, asc, eq, gte, lt } from 'drizzle-orm';
import type { SecretBox } from '../../crypto/secret-box';
import type { Database } from '../../db/client';
import { appointments } from './tables';
import { AppError, isUniqueViolation } from '../../http/errors';
import { bookingMessages } from './texts';
import type { Logger } from '../../logger';
import type { BookingCache } from './cache';
import { type YclientsClient, type YclientsService, type YclientsStaff, YclientsApiError } from './client';
import { bookingFailure } from './errors';
import { createClientMatching, type MatchOutcome } from './match';
import { normalisePhone } from '../../phone';
import { USER_TOKEN_KEY, type BookingSettings, type OpenBookingSettings } from './settings';

export interface Specialist {
  /** The agent's own id for the specialist (a key of specialistMapping, or the YCLIENTS id without a mapping). */
  id: string;
  staffId: number;
  name: string;
  specialization: string;
  position: string | null;
}

export interface BookableService {
  id: string;
  serviceId: number;
  title: string;
  priceMin: number;
  priceMax: number;
  /** The shortest duration among the specialists who perform it, in minutes; null when unknown. */
  durationMinutes: number | null;
  /** Agent ids of the specialists who perform it (only those the agent knows). */
  specialistIds: string[];
}

export interface FreeSlot {
  /** Local time label, e.g. "10:00". */
  time: string;
  /** ISO 8601 with the company's offset: pass it back unchanged to book. */
  datetime: string;
  durationMinutes: number;
}

export interface AppointmentInput {
  specialistId: string;
  serviceId: string;
  datetime: string;
  clientName: string;
  clientPhone: string;
}

export interface Appointment {
  id: string;
  specialistId: string;
  serviceId: string;
  datetime: string;
  clientName: string;
  clientPhone: string;
  status: 'booked';
  externalRecordId: string;
  createdAt: string;
}

/** Who books: the owner's API, the dialogue's buttons, or the model's tool (the latter two name the dialogue). */
export type BookingOrigin = { source: 'api' } | { source: 'button' | 'model'; dialogueId: string };

/** A client's own appointment, as the dialogue that booked it may see it. */
export interface ClientAppointment {
  id: string;
  specialistId: string;
  serviceId: string;
  datetime: string;
  clientName: string;
  /** Linked from YCLIENTS by client matching (match.ts), not booked in the dialogue. */
  matched?: true;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface BookingServiceDeps {
  db: Database;
  box: SecretBox;
  cache: BookingCache;
  settings: BookingSettings;
  clientFor(partnerToken: string): YclientsClient;
  logger: Logger;
  userTokenTtlSeconds: number;
  /** Where a company's day starts when YCLIENTS' company data names no zone (config YCLIENTS_TIME_ZONE). */
  defaultTimeZone: string;
}

/** How long the company's time zone is kept: it changes when the salon moves, if ever. */
const COMPANY_ZONE_TTL_SECONDS = 24 * 3600;
/**
 * A failed look-up of the zone is remembered this long (the configured zone stands in): otherwise every
 * slot look-up while YCLIENTS' company data hangs would wait out its timeout first.
 */
const FAILED_ZONE_TTL_SECONDS = 5 * 60;

/** Where a company's day starts: an IANA zone, or a fixed offset when YCLIENTS gives only that. */
export type CompanyZone = { timeZone: string } | { utcOffsetMinutes: number };

/** The date (YYYY-MM-DD) it is in `zone` at `at`. */
function dateIn(zone: CompanyZone, at: Date): string {
  if ('utcOffsetMinutes' in zone) return new Date(at.getTime() + zone.utcOffsetMinutes * 60_000).toISOString().slice(0, 10);
  // en-CA writes dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', { timeZone: zone.timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/** Minutes `zone` is ahead of UTC at `at`. */
function offsetMinutesAt(zone: CompanyZone, at: number): number {
  if ('utcOffsetMinutes' in zone) return zone.utcOffsetMinutes;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone.timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(at);
  const part = (type: string) => Number(parts.find((p) => p.type === type)!.value);
  const wall = Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
  return Math.round((wall - Math.floor(at / 1000) * 1000) / 60_000);
}

/**
 * When a free time starts. YCLIENTS writes the company's offset into `datetime`; one without an offset
 * is a wall-clock time of the company's zone.
 */
export function slotStart(datetime: string, zone: CompanyZone): number {
  if (/(?:Z|[+-]\d{2}:?\d{2})$/i.test(datetime)) return Date.parse(datetime);
  const wall = Date.parse(`${datetime}Z`);
  // The offset at the wall time read as UTC is right except within hours of a DST change; the second read settles it.
  const first = wall - offsetMinutesAt(zone, wall) * 60_000;
  return wall - offsetMinutesAt(zone, first) * 60_000;
}

/** The calendar date `days` after `date` (YYYY-MM-DD). */
function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y!, m! - 1, d! + days)).toISOString().slice(0, 10);
}

/** The date part of an ISO date-time as written, i.e. the company's local date when it carries the offset. */
function localDate(datetime: string): string {
  return datetime.slice(0, 10);
}

function invert(mapping: Record<string, number>): Map<number, string> {
  const byExternal = new Map<number, string>();
  for (const [internal, external] of Object.entries(mapping)) if (!byExternal.has(external)) byExternal.set(external, internal);
  return byExternal;
}

export function createBookingService(deps: BookingServiceDeps) {
  const { db, box, cache, settings, logger } = deps;

  async function configured(agentId: string): Promise<OpenBookingSettings> {
    const s = await settings.load(agentId);
    if (!s) throw new AppError('invalid_request_error', bookingMessages.bookingNotConfigured);
    return s;
  }

  const ttlSeconds = (s: OpenBookingSettings) => s.slotCacheTtlMinutes * 60;

  /** The administrator token: shared through the cache for 55 minutes, or a fresh login. */
  async function userToken(s: OpenBookingSettings, client: YclientsClient, fresh: boolean): Promise<string> {
    if (!fresh) {
      const cached = await cache.get<{ sealed: string }>(s.agentId, USER_TOKEN_KEY);
      if (cached) {
        try {
          return box.open(cached.sealed, 'userToken');
        } catch {
          // Sealed under a key that is gone: log in again.
        }
      }
    }
    const token = await client.authUser({ login: s.login, password: s.password });
    await cache.set(s.agentId, USER_TOKEN_KEY, { sealed: box.seal(token) }, deps.userTokenTtlSeconds);
    return token;
  }

  /** An administrator call; a refused token is renewed once and the call repeated. */
  async function asAdmin<T>(s: OpenBookingSettings, call: (client: YclientsClient, token: string) => Promise<T>): Promise<T> {
    const client = deps.clientFor(s.partnerToken);
    try {
      return await call(client, await userToken(s, client, false));
    } catch (error) {
      if (!(error instanceof YclientsApiError && error.tokenRejected)) throw error;
      logger.info('yclients refused the administrator token; logging in again', { agentId: s.agentId });
      return call(client, await userToken(s, client, true));
    }
  }

  const matching = createClientMatching({ db, cache, logger, asAdmin });

  async function cached<T>(s: OpenBookingSettings, key: string, fetch: () => Promise<T>, refresh = false): Promise<T> {
    if (!refresh) {
      const hit = await cache.get<T>(s.agentId, key);
      if (hit !== null) return hit;
    }
    const value = await fetch();
    await cache.set(s.agentId, key, value, ttlSeconds(s));
    return value;
  }

  const staffOf = (s: OpenBookingSettings, refresh = false) => cached<YclientsStaff[]>(s, 'staff', () => asAdmin(s, (c, t) => c.getStaff(s.companyId, t)), refresh);
  const servicesOf = (s: OpenBookingSettings, refresh = false) =>
    cached<YclientsService[]>(s, 'services', () => asAdmin(s, (c, t) => c.getServices(s.companyId, t)), refresh);

  function specialistsFrom(s: OpenBookingSettings, staff: YclientsStaff[]): Specialist[] {
    const shown = (m: YclientsStaff) => !m.fired && !m.deleted;
    const toSpecialist = (id: string, m: YclientsStaff): Specialist => ({
      id,
      staffId: m.id,
      name: m.name,
      specialization: m.specialization,
      position: m.positionTitle,
    });
    const entries = Object.entries(s.specialistMapping);
    if (entries.length === 0) return staff.filter((m) => shown(m) && !m.hidden).map((m) => toSpecialist(String(m.id), m));
    // In YCLIENTS' order (its own weights); a stored mapping keeps no order of its own.
    const internal = invert(s.specialistMapping);
    const list = staff.filter((m) => internal.has(m.id) && shown(m)).map((m) => toSpecialist(internal.get(m.id)!, m));
    const listed = new Set(list.map((p) => p.staffId));
    for (const [, staffId] of entries) {
      if (!listed.has(staffId)) logger.warn('mapped specialist is not in yclients (or was dismissed)', { agentId: s.agentId, staffId });
    }
    return list;
  }

  function servicesFrom(s: OpenBookingSettings, services: YclientsService[], specialists: Specialist[]): BookableService[] {
    const specialistByStaff = new Map(specialists.map((p) => [p.staffId, p.id]));
    const toService = (id: string, v: YclientsService): BookableService => {
      const lengths = v.staff.map((x) => x.seanceLength).filter((x) => x > 0);
      const seconds = lengths.length > 0 ? Math.min(...lengths) : v.seanceLength;
      return {
        id,
        serviceId: v.id,
        title: v.title,
        priceMin: v.priceMin,
        priceMax: v.priceMax,
        durationMinutes: seconds ? Math.round(seconds / 60) : null,
        specialistIds: v.staff.map((x) => specialistByStaff.get(x.id)).filter((x): x is string => x !== undefined),
      };
    };
    const entries = Object.entries(s.serviceMapping);
    if (entries.length === 0) return services.filter((v) => v.active).map((v) => toService(String(v.id), v));
    const internal = invert(s.serviceMapping);
    const list = services.filter((v) => internal.has(v.id)).map((v) => toService(internal.get(v.id)!, v));
    const listed = new Set(list.map((v) => v.serviceId));
    for (const [, serviceId] of entries) {
      if (!listed.has(serviceId)) logger.warn('mapped service is not in yclients', { agentId: s.agentId, serviceId });
    }
    return list;
  }

  function resolve(mapping: Record<string, number>, id: string, unknown: (id: string) => string): number {
    if (Object.keys(mapping).length > 0) {
      const external = mapping[id];
      if (external === undefined) throw new AppError('invalid_request_error', unknown(id));
      return external;
    }
    if (!/^\d{1,12}$/.test(id)) throw new AppError('invalid_request_error', unknown(id));
    return Number(id);
  }

  const slotsKey = (date: string, staffId: number, serviceId?: number) =>
    serviceId === undefined ? `slots:${date}:${staffId}:` : `slots:${date}:${staffId}:${serviceId}`;

  async function freeTimes(s: OpenBookingSettings, date: string, staffId: number, serviceId: number, refresh = false) {
    return cached<FreeSlot[]>(
      s,
      slotsKey(date, staffId, serviceId),
      async () =>
        (await deps.clientFor(s.partnerToken).getBookTimes(s.companyId, staffId, date, [serviceId])).map((t) => ({
          time: t.time,
          datetime: t.datetime,
          durationMinutes: Math.round(t.seanceLength / 60),
        })),
      refresh,
    );
  }

  /** The company's zone from YCLIENTS (cached for a day), else the configured one. */
  async function companyZone(s: OpenBookingSettings): Promise<CompanyZone> {
    try {
      let zone = await cache.get<CompanyZone | { unknown: true }>(s.agentId, 'company-zone');
      if (!zone) {
        const company = await deps.clientFor(s.partnerToken).getCompany(s.companyId);
        zone = company.timeZone
          ? { timeZone: company.timeZone }
          : company.utcOffsetMinutes !== null
            ? { utcOffsetMinutes: company.utcOffsetMinutes }
            : { unknown: true };
        await cache.set(s.agentId, 'company-zone', zone, COMPANY_ZONE_TTL_SECONDS);
      }
      return 'unknown' in zone ? { timeZone: deps.defaultTimeZone } : zone;
    } catch (error) {
      logger.warn('yclients company data unavailable; using the configured time zone', { agentId: s.agentId, error });
      await cache.set(s.agentId, 'company-zone', { unknown: true }, FAILED_ZONE_TTL_SECONDS).catch(() => undefined);
      return { timeZone: deps.defaultTimeZone };
    }
  }

  const failing = <T>(s: OpenBookingSettings | null, run: () => Promise<T>): Promise<T> =>
    run().catch((error) => {
      throw bookingFailure(error, 'use', s?.companyId);
    });

  /**
   * The upcoming appointment `appointmentId` booked in this dialogue, or undefined: another client's id is as
   * unknown as a made-up one, and a visit already past is the salon's to settle, not the client's to change.
   */
  async function upcomingOwn(agentId: string, appointmentId: string, dialogueId: string) {
    if (!UUID.test(appointmentId)) return undefined;
    const [row] = await db
      .select()
      .from(appointments)
      .where(
        and(
          eq(appointments.id, appointmentId),
          eq(appointments.agentId, agentId),
          eq(appointments.dialogueId, dialogueId),
          eq(appointments.status, 'booked'),
          gte(appointments.startsAt, new Date()),
        ),
      )
      .limit(1);
    return row;
  }

  /**
   * YCLIENTS' PUT /record (§10) of an appointment row: every field resent, the new start or specialist
   * given, and the record's `attendance` when it changes (2: the client confirmed the visit).
   */
  async function putRecord(
    s: OpenBookingSettings,
    row: typeof appointments.$inferSelect,
    change: { staffId: number; datetime: string; comment: string; attendance?: 2 },
  ) {
    const recordId = Number(row.externalRecordId);
    if (!Number.isSafeInteger(recordId) || recordId <= 0) throw new AppError('invalid_request_error', bookingMessages.bookingNotFound);
    const service = (await failing(s, () => servicesOf(s))).find((v) => v.id === row.externalServiceId);
    const length = service?.staff.find((x) => x.id === change.staffId)?.seanceLength || service?.seanceLength || 3600;
    const cost = service?.priceMin ?? 0;
    return asAdmin(s, (c, t) =>
      c.updateRecord(
        s.companyId,
        recordId,
        {
          staffId: change.staffId,
          services: [{ id: row.externalServiceId, cost, firstCost: cost, discount: 0 }],
          client: { phone: row.clientPhone, name: row.clientName },
          datetime: change.datetime,
          seanceLength: length,
          saveIfBusy: false,
          sendSms: false,
          comment: change.comment,
          ...(change.attendance === undefined ? {} : { attendance: change.attendance }),
        },
        t,
      ),
    );
  }

  /** What a client is shown of an appointment row. */
  const clientView = (r: ClientAppointment): ClientAppointment => ({
    id: r.id,
    specialistId: r.specialistId,
    serviceId: r.serviceId,
    datetime: r.datetime,
    clientName: r.clientName,
  });

  return {
    async specialists(agentId: string): Promise<Specialist[]> {
      const s = await configured(agentId);
      return failing(s, async () => specialistsFrom(s, await staffOf(s)));
    },

    async services(agentId: string): Promise<BookableService[]> {
      const s = await configured(agentId);
      return failing(s, async () => servicesFrom(s, await servicesOf(s), specialistsFrom(s, await staffOf(s))));
    },

    /**
     * Free times of one day that are still ahead: a day already over in the company's zone has none (and
     * YCLIENTS is not asked), today's start after now. The REST endpoint, the booking buttons and the
     * assistant's tools all read free times here, so none of them offers a time that has passed.
     */
    async slots(agentId: string, query: { date: string; specialistId: string; serviceId: string }): Promise<FreeSlot[]> {
      const s = await configured(agentId);
      const staffId = resolve(s.specialistMapping, query.specialistId, bookingMessages.unknownSpecialist);
      const serviceId = resolve(s.serviceMapping, query.serviceId, bookingMessages.unknownService);
      const zone = await companyZone(s);
      const now = Date.now();
      const today = dateIn(zone, new Date(now));
      if (query.date < today) return [];
      const times = await failing(s, () => freeTimes(s, query.date, staffId, serviceId));
      return query.date > today ? times : times.filter((t) => slotStart(t.datetime, zone) > now);
    },

    async book(agentId: string, input: AppointmentInput, origin: BookingOrigin): Promise<Appointment> {
      const { source } = origin;
      const s = await configured(agentId);
      const staffId = resolve(s.specialistMapping, input.specialistId, bookingMessages.unknownSpecialist);
      const serviceId = resolve(s.serviceMapping, input.serviceId, bookingMessages.unknownService);
      const phone = normalisePhone(input.clientPhone);
      if (!phone) {
        throw new AppError('invalid_request_error', 'Телефон клиента: укажите телефон в международном формате, например +7 916 123-45-67', { param: 'clientPhone' });
      }
      const startsAt = new Date(input.datetime);
      const date = localDate(input.datetime);
      // A time that has passed is never booked, whatever a stale button or a model's guess says.
      if (startsAt.getTime() <= Date.now()) throw new AppError('conflict', bookingMessages.slotPast);

      // Fresh from YCLIENTS, and the cache learns the answer too.
      const times = await failing(s, () => freeTimes(s, date, staffId, serviceId, true));
      const slot = times.find((t) => Date.parse(t.datetime) === startsAt.getTime());
      if (!slot) throw new AppError('conflict', bookingMessages.slotTaken);

      let claimId: string;
      try {
        const [claim] = await db
          .insert(appointments)
          .values({
            agentId,
            specialistId: input.specialistId,
            serviceId: input.serviceId,
            staffId,
            externalServiceId: serviceId,
            startsAt,
            datetime: slot.datetime,
            clientName: input.clientName,
            clientPhone: phone,
            status: 'pending',
            source,
            dialogueId: origin.source === 'api' ? null : origin.dialogueId,
          })
          .returning({ id: appointments.id });
        claimId = claim!.id;
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError('conflict', bookingMessages.slotTaken);
        throw error;
      }

      try {
        const [booked] = await deps.clientFor(s.partnerToken).bookRecord(s.companyId, {
          phone,
          fullname: input.clientName,
          apiId: claimId,
          comment: source === 'api' ? 'Запись через Conduit' : 'Запись через ассистента Conduit',
          appointments: [{ id: 1, serviceIds: [serviceId], staffId, datetime: slot.datetime }],
        });
        if (!booked)
          throw new YclientsApiError({
            kind: 'unexpected',
            status: 201,
            message: 'book_record answered without a record',
            code: null,
            details: [],
            method: 'POST',
            path: `/book_record/${s.companyId}`,
            retryAfterSeconds: null,
          });
        const [row] = await db
          .update(appointments)
          .set({ status: 'booked', externalRecordId: String(booked.recordId), updatedAt: new Date() })
          .where(eq(appointments.id, claimId))
          .returning();
        await cache.deletePrefix(agentId, slotsKey(date, staffId)).catch(() => {});
        logger.info('appointment booked', { agentId, appointmentId: claimId, staffId, recordId: booked.recordId });
        return {
          id: row!.id,
          specialistId: row!.specialistId,
          serviceId: row!.serviceId,
          datetime: row!.datetime,
          clientName: row!.clientName,
          clientPhone: row!.clientPhone,
          status: 'booked',
          externalRecordId: row!.externalRecordId!,
          createdAt: row!.createdAt.toISOString(),
        };
      } catch (error) {
        await db.delete(appointments).where(eq(appointments.id, claimId));
        if (error instanceof YclientsApiError && error.kind === 'slot_busy') {
          await cache.deletePrefix(agentId, slotsKey(date, staffId)).catch(() => {});
        }
        logger.warn('booking failed; claim withdrawn', { agentId, appointmentId: claimId, error });
        throw bookingFailure(error, 'use', s.companyId);
      }
    },

    /** The upcoming appointments booked in one dialogue (its client's own), soonest first. */
    async appointmentsOf(agentId: string, dialogueId: string): Promise<ClientAppointment[]> {
      const rows = await db
        .select()
        .from(appointments)
        .where(
          and(eq(appointments.agentId, agentId), eq(appointments.dialogueId, dialogueId), eq(appointments.status, 'booked'), gte(appointments.startsAt, new Date())),
        )
        .orderBy(asc(appointments.startsAt));
      return rows.map((r) => (r.source === 'matched' ? { ...clientView(r), matched: true as const } : clientView(r)));
    },

    /**
     * Cancels an upcoming appointment booked in this dialogue by deleting its record in YCLIENTS (its only way to
     * cancel). Null when the dialogue has no such booked appointment: another client's id is as unknown as
     * a made-up one. A record YCLIENTS no longer has (deleted there, or by an earlier try whose answer was
     * lost) is canceled here all the same.
     */
    async cancel(agentId: string, appointmentId: string, dialogueId: string): Promise<ClientAppointment | null> {
      const row = await upcomingOwn(agentId, appointmentId, dialogueId);
      if (!row) return null;
      const s = await configured(agentId);
      const recordId = Number(row.externalRecordId);
      if (Number.isSafeInteger(recordId) && recordId > 0) {
        try {
          await asAdmin(s, (c, t) => c.deleteRecord(s.companyId, recordId, t));
        } catch (error) {
          if (!(error instanceof YclientsApiError && error.kind === 'not_found')) throw bookingFailure(error, 'use', s.companyId);
          logger.warn('yclients no longer has the record being canceled', { agentId, appointmentId, recordId });
        }
      }
      await db
        .update(appointments)
        .set({ status: 'canceled', canceledAt: new Date(), updatedAt: new Date() })
        .where(and(eq(appointments.id, row.id), eq(appointments.status, 'booked')));
      await cache.deletePrefix(agentId, slotsKey(localDate(row.datetime), row.staffId)).catch(() => {});
      logger.info('appointment canceled', { agentId, appointmentId, recordId });
      return clientView(row);
    },

    /**
     * Whether an appointment still stands as booked, asked of YCLIENTS (§8 GET /record) just before the
     * client is reminded of it: a record deleted there (the salon cancelled it) cancels it here too, a record
     * moved there moves it here (its reminders are then those of the new time). 'same' when it still starts
     * at `startsAt` (what the caller read) here and in YCLIENTS.
     */
    async recheck(appointmentId: string, startsAt: Date): Promise<'same' | 'canceled' | 'moved'> {
      const [row] = await db
        .select()
        .from(appointments)
        .where(and(eq(appointments.id, appointmentId), eq(appointments.status, 'booked')));
      if (!row) return 'canceled';
      // Moved since the caller read it (by the client, or by another instance's recheck a moment ago).
      if (row.startsAt.getTime() !== startsAt.getTime()) return 'moved';
      const s = await configured(row.agentId);
      const recordId = Number(row.externalRecordId);
      const record = Number.isSafeInteger(recordId) && recordId > 0 ? await failing(s, () => asAdmin(s, (c, t) => c.getRecord(s.companyId, recordId, t))) : null;
      if (!record || record.deleted) {
        await db
          .update(appointments)
          .set({ status: 'canceled', canceledAt: new Date(), updatedAt: new Date() })
          .where(and(eq(appointments.id, row.id), eq(appointments.status, 'booked')));
        logger.info('appointment cancelled in yclients', { agentId: row.agentId, appointmentId, recordId });
        return 'canceled';
      }
      const there = record.datetime ? Date.parse(record.datetime) : Number.NaN;
      if (!Number.isFinite(there) || there === row.startsAt.getTime()) return 'same';
      const moved = { startsAt: new Date(there), datetime: record.datetime!, updatedAt: new Date() };
      const staff = record.staffId !== null && record.staffId !== row.staffId ? { staffId: record.staffId } : {};
      try {
        await db
          .update(appointments)
          .set({ ...moved, ...staff })
          .where(eq(appointments.id, row.id));
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // Another of our rows holds that start: the time is kept, the move noted only in the log.
        logger.warn('a record moved in yclients onto a start another appointment holds', { agentId: row.agentId, appointmentId, recordId });
      }
      logger.info('appointment moved in yclients', { agentId: row.agentId, appointmentId, recordId });
      return 'moved';
    },

    /**
     * After the visit (issue 42 point 2): the record's `attendance` read from YCLIENTS (§8 GET /record) and
     * kept on the appointment, `attendanceAt` the first time it changes; a record deleted there cancels the
     * appointment here (as `recheck` does). Returns what was found.
     */
    async readAttendance(appointmentId: string, now: Date): Promise<{ state: 'canceled' } | { state: 'read'; attendance: number | null }> {
      const [row] = await db
        .select()
        .from(appointments)
        .where(and(eq(appointments.id, appointmentId), eq(appointments.status, 'booked')));
      if (!row) return { state: 'canceled' };
      const s = await configured(row.agentId);
      const recordId = Number(row.externalRecordId);
      const record = Number.isSafeInteger(recordId) && recordId > 0 ? await failing(s, () => asAdmin(s, (c, t) => c.getRecord(s.companyId, recordId, t))) : null;
      if (!record || record.deleted) {
        await db
          .update(appointments)
          .set({ status: 'canceled', canceledAt: now, updatedAt: new Date() })
          .where(and(eq(appointments.id, row.id), eq(appointments.status, 'booked')));
        logger.info('appointment cancelled in yclients', { agentId: row.agentId, appointmentId, recordId });
        return { state: 'canceled' };
      }
      if (record.attendance !== null && record.attendance !== row.attendance) {
        await db.update(appointments).set({ attendance: record.attendance, attendanceAt: now }).where(eq(appointments.id, row.id));
      }
      return { state: 'read', attendance: record.attendance };
    },

    /**
     * The client confirmed an upcoming appointment booked in this dialogue (a reminder's «Подтвердить»):
     * the record's `attendance` becomes 2 in YCLIENTS (§8), its time and specialist resent unchanged.
     * Null when the dialogue has no such booked appointment.
     */
    async confirm(agentId: string, appointmentId: string, dialogueId: string): Promise<ClientAppointment | null> {
      const row = await upcomingOwn(agentId, appointmentId, dialogueId);
      if (!row) return null;
      const s = await configured(agentId);
      try {
        await putRecord(s, row, { staffId: row.staffId, datetime: row.datetime, comment: 'Визит подтверждён клиентом через ассистента Conduit', attendance: 2 });
      } catch (error) {
        throw bookingFailure(error, 'use', s.companyId);
      }
      logger.info('appointment confirmed by the client', { agentId, appointmentId });
      return clientView(row);
    },

    /**
     * Moves an upcoming appointment booked in this dialogue to a new time (and, given one, another
     * specialist) with YCLIENTS' own PUT /record (§10): the record changes in place, so a new time that
     * overlaps its own old one is possible, where book-new-then-cancel-old is refused by the client's own
     * visit. A time another record holds is refused as a conflict, as is a time already past. Null when
     * the dialogue has no such booked appointment.
     */
    async reschedule(
      agentId: string,
      appointmentId: string,
      dialogueId: string,
      input: { datetime: string; specialistId?: string },
    ): Promise<{ before: ClientAppointment; after: ClientAppointment } | null> {
      const row = await upcomingOwn(agentId, appointmentId, dialogueId);
      if (!row) return null;
      const s = await configured(agentId);
      const specialistId = input.specialistId ?? row.specialistId;
      const staffId = input.specialistId ? resolve(s.specialistMapping, specialistId, bookingMessages.unknownSpecialist) : row.staffId;
      const startsAt = new Date(input.datetime);
      if (startsAt.getTime() <= Date.now()) throw new AppError('conflict', bookingMessages.slotPast);
      const recordId = Number(row.externalRecordId);
      if (!Number.isSafeInteger(recordId) || recordId <= 0) throw new AppError('invalid_request_error', bookingMessages.bookingNotFound);

      // The new start is claimed here first, under the same unique index as a booking.
      const moved = { startsAt, datetime: input.datetime, staffId, specialistId, updatedAt: new Date() };
      try {
        await db.update(appointments).set(moved).where(eq(appointments.id, row.id));
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError('conflict', bookingMessages.slotTaken);
        throw error;
      }
      let datetime = input.datetime;
      try {
        const record = await putRecord(s, row, { staffId, datetime: input.datetime, comment: 'Перенос через ассистента Conduit' });
        if (record.datetime && Date.parse(record.datetime) === startsAt.getTime()) datetime = record.datetime;
        if (datetime !== input.datetime) await db.update(appointments).set({ datetime }).where(eq(appointments.id, row.id));
      } catch (error) {
        await db
          .update(appointments)
          .set({ startsAt: row.startsAt, datetime: row.datetime, staffId: row.staffId, specialistId: row.specialistId, updatedAt: new Date() })
          .where(eq(appointments.id, row.id));
        logger.warn('reschedule refused; the appointment keeps its time', { agentId, appointmentId, recordId, error });
        throw bookingFailure(error, 'use', s.companyId);
      }
      await cache.deletePrefix(agentId, slotsKey(localDate(row.datetime), row.staffId)).catch(() => {});
      await cache.deletePrefix(agentId, slotsKey(localDate(datetime), staffId)).catch(() => {});
      logger.info('appointment rescheduled', { agentId, appointmentId, recordId });
      return { before: clientView(row), after: clientView({ ...row, specialistId, datetime }) };
    },

    /**
     * Issue 42 point 4 (match.ts): with the owner's `matchClientRecords` on, links the upcoming YCLIENTS records of
     * the cards matching the dialogue's phone and name to it. Never throws for YCLIENTS: a failure is logged.
     */
    async matchClientRecords(agentId: string, dialogueId: string, now = new Date()): Promise<MatchOutcome> {
      return matching.matchDialogue(await settings.load(agentId).catch(() => null), dialogueId, now);
    },

    /** The sync's matching: recent dialogues of one agent, bounded; the records linked. */
    matchRecentClients: (s: OpenBookingSettings, since: Date, limit: number, now = new Date()) => matching.matchRecent(s, since, limit, now),

    /** Refreshes what the sync keeps warm: specialists, services and the next days' free times. */
    async refresh(s: OpenBookingSettings, days: number, maxSlotCalls: number): Promise<{ slotCalls: number }> {
      const staff = await staffOf(s, true);
      const services = await servicesOf(s, true);
      const specialists = specialistsFrom(s, staff);
      const bookable = servicesFrom(s, services, specialists);
      const staffBySpecialist = new Map(specialists.map((p) => [p.id, p.staffId]));
      let slotCalls = 0;
      // "Today" is the salon's: near midnight UTC's date is another day in most of Russia.
      const today = dateIn(await companyZone(s), new Date());
      for (let d = 0; d < days; d++) {
        const date = addDays(today, d);
        for (const service of bookable) {
          for (const specialistId of service.specialistIds) {
            if (slotCalls >= maxSlotCalls) return { slotCalls };
            const staffId = staffBySpecialist.get(specialistId);
            if (staffId === undefined) continue;
            await freeTimes(s, date, staffId, service.serviceId, true);
            slotCalls += 1;
          }
        }
      }
      return { slotCalls };
    },

    /**
     * Claims left pending by a process that died between claiming and hearing back from YCLIENTS. They
     * block their slot until removed; the booking behind one may or may not exist, so it is logged.
     */
    async dropStaleClaims(olderThanMinutes: number): Promise<number> {
      const stale = await db
        .delete(appointments)
        .where(and(eq(appointments.status, 'pending'), lt(appointments.createdAt, new Date(Date.now() - olderThanMinutes * 60_000))))
        .returning({ id: appointments.id, agentId: appointments.agentId });
      for (const claim of stale) logger.warn('dropped a stale booking claim; check it in yclients', claim);
      return stale.length;
    },
  };
}

export type BookingService = ReturnType<typeof createBookingService>;
