// A fake YCLIENTS REST API v1 for tests: a real HTTP server speaking the wire format of
// docs/integrations/yclients.md §8 (envelopes, error bodies, statuses), backed by an in-memory schedule.
// Like the real API it limits each client address to 5 requests a second and 200 a minute (the official
// API Blueprint, "Лимиты": "200 запросов в минуту, или 5 запросов в секунду на один IP-адрес") and answers
// HTTP 429 beyond that. Where the reference is unconfirmed (the 429 body, the 422 body of a busy /records),
// the behaviour is switchable through `settings`.
import { answerResponse, FailureQueue, jsonOrText, startFakeServer } from './fake-server';
import {
  type Company,
  findStaff,
  performs,
  performsId,
  durationOf,
  bookableStaff,
  workIntervals,
  byMonth,
  localDate,
  localTime,
  isoLocal,
  parseDatetime,
  isObj,
  intList,
  validPhone,
} from './yclients-calendar';
import { adminService, adminStaff, bookService, companyView, legacy, recordView } from './yclients-views';
import { type ClientsAnswer, createClientCards, listRecords } from './yclients-clients';

export const FAKE_API_PREFIX = '/api/v1';

import type { FakeStaffSpec, RecordedCall, FailureSpec, FakeRecord, FakeYclientsSettings, FakeYclients } from './yclients-types';
export type {
  FakeStaffSpec,
  FakeServiceSpec,
  FakeWorkingHours,
  FakeCompanySpec,
  RecordedCall,
  FailureSpec,
  FakeRecord,
  FakeYclientsSettings,
  FakeYclients,
} from './yclients-types';

const DEFAULT_SETTINGS: FakeYclientsSettings = {
  authFailureStatus: 401,
  legacyStrings: false,
  recordsDataAsArray: false,
  slotTakenWithCode: true,
  rateLimit: { perSecond: 5, perMinute: 200 },
  rateLimitRetryAfter: null,
  companyTimezoneShape: 'name',
};

interface Busy {
  companyId: number;
  staffId: number;
  start: number;
  end: number;
  /** The record occupying the time, freed when it is deleted; absent for markBusy. */
  recordId?: number;
}

interface Failure extends FailureSpec {
  pattern: string | RegExp;
}

interface Appt {
  id: number;
  staffId: number;
  serviceIds: number[];
  datetime: string;
}

class HttpAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

const ok = (data: unknown, meta: unknown = [], status = 200) => new HttpAnswer(status, { success: true, data, meta });
const fail = (status: number, message: string, errors?: { code?: number; message: string }[]) =>
  new HttpAnswer(status, {
    success: false,
    data: null,
    meta: errors ? { message, errors } : { message },
  });

const AUTH_NEEDED = 'Authentication needed.';

export async function startFakeYclients(): Promise<FakeYclients> {
  const companies = new Map<number, Company>();
  const userTokens = new Map<string, { login: string; partnerToken: string }>();
  const busy: Busy[] = [];
  const records: FakeRecord[] = [];
  const cards = createClientCards();
  const failures = new FailureQueue<Failure>();
  const calls: RecordedCall[] = [];
  let settings: FakeYclientsSettings = structuredClone(DEFAULT_SETTINGS);
  let loginCount = 0;
  let rateLimited = 0;
  /** Client address → arrival times (ms) of the requests it was served, the last minute's. */
  const arrivals = new Map<string, number[]>();
  let nextRecordId = 58_112_000;
  let nextTokenId = 1;

  const server = startFakeServer(async (req, srv) => answerResponse(overLimit(srv.requestIP(req)?.address ?? 'unknown') ?? (await handle(req))));

  /** The 429 of a client over the limit, or null after counting the request as served. */
  function overLimit(address: string): HttpAnswer | null {
    const limit = settings.rateLimit;
    if (!limit) return null;
    const now = performance.now();
    const recent = (arrivals.get(address) ?? []).filter((t) => now - t < 60_000);
    const lastSecond = recent.filter((t) => now - t < 1000).length;
    if (lastSecond >= limit.perSecond || recent.length >= limit.perMinute) {
      arrivals.set(address, recent);
      rateLimited += 1;
      // The body of YCLIENTS' 429 is unconfirmed: the usual error envelope.
      const headers: Record<string, string> = settings.rateLimitRetryAfter === null ? {} : { 'Retry-After': String(settings.rateLimitRetryAfter) };
      return new HttpAnswer(429, { success: false, data: null, meta: { message: 'Too Many Requests' } }, headers);
    }
    recent.push(now);
    arrivals.set(address, recent);
    return null;
  }

  async function handle(req: Request): Promise<HttpAnswer> {
    const url = new URL(req.url);
    const text = req.method === 'GET' || req.method === 'HEAD' ? '' : await req.text();
    const body = jsonOrText(text);
    const path = url.pathname.startsWith(FAKE_API_PREFIX) ? url.pathname.slice(FAKE_API_PREFIX.length) : url.pathname;
    const headers: Record<string, string> = {};
    req.headers.forEach((value, key) => {
      headers[key.toLowerCase()] = value;
    });
    calls.push({ method: req.method, path, query: decodeURIComponent(url.search.replace(/^\?/, '')), headers, body });

    const failure = takeFailure(req.method, path);
    if (failure) {
      if (failure.delayMs) await server.hold({ ms: failure.delayMs });
      return failureAnswer(failure);
    }
    if (!url.pathname.startsWith(`${FAKE_API_PREFIX}/`)) return fail(404, 'Not found');

    const auth = parseAuthorization(headers.authorization);
    if (!auth || !isKnownPartner(auth.partner)) return fail(401, AUTH_NEEDED);

    try {
      return route(req.method, path, url.searchParams, body, auth);
    } catch (err) {
      if (err instanceof HttpAnswer) return err;
      throw err;
    }
  }

  function route(method: string, path: string, query: URLSearchParams, body: unknown, auth: { partner: string; user: string | null }): HttpAnswer {
    let m: RegExpMatchArray | null;
    if (method === 'POST' && path === '/auth') return authUser(body, auth.partner);

    if (method === 'GET' && (m = path.match(/^\/company\/(\d+)\/staff(?:\/(\d+))?\/?$/))) {
      const company = adminCompany(m[1], auth);
      let staff = company.spec.staff;
      if (m[2]) {
        staff = staff.filter((s) => s.id === Number(m![2]));
        if (staff.length === 0) {
          throw fail(404, `Team Member with ID ${m[2]} was not found in branch ${company.spec.id}`);
        }
      }
      return ok(
        staff.map((s) => adminStaff(settings, company, s)),
        { total_count: staff.length },
      );
    }

    if (method === 'GET' && (m = path.match(/^\/company\/(\d+)\/services(?:\/(\d+))?\/?$/))) {
      const company = adminCompany(m[1], auth);
      let services = company.spec.services;
      if (m[2]) {
        services = services.filter((s) => s.id === Number(m![2]));
        if (services.length === 0) throw fail(404, 'Услуга не найдена.');
      }
      const staffId = query.get('staff_id');
      if (staffId) services = services.filter((s) => performs(company, s, Number(staffId)));
      return ok(
        services.map((s) => adminService(settings, company, s)),
        { total_count: services.length },
      );
    }

    if (method === 'GET' && (m = path.match(/^\/company\/(\d+)\/?$/))) {
      const company = publicCompany(m[1], auth);
      return ok(companyView(settings, company));
    }

    if (method === 'GET' && (m = path.match(/^\/book_staff\/(\d+)\/?$/))) {
      const company = publicCompany(m[1], auth);
      const serviceIds = intList(query.getAll('service_ids[]'));
      const staff = company.spec.staff.filter((s) => !s.fired && !s.hidden && serviceIds.every((id) => performsId(company, id, s.id)));
      return ok(staff.map((s) => bookStaff(company, s)));
    }

    if (method === 'GET' && (m = path.match(/^\/book_services\/(\d+)\/?$/))) {
      const company = publicCompany(m[1], auth);
      const staffId = query.get('staff_id') ? Number(query.get('staff_id')) : null;
      const services = company.spec.services.filter((s) => s.active !== false && (staffId === null || performs(company, s, staffId)));
      const categories = [...new Set(services.map((s) => s.category_id ?? 0))].map((id) => ({
        id,
        title: `Категория ${id}`,
        sex: 0,
        api_id: '0',
        weight: 0,
      }));
      return ok({
        events: [],
        services: services.map((s) => bookService(settings, company, s, staffId)),
        category: categories,
      });
    }

    if (method === 'GET' && (m = path.match(/^\/book_dates\/(\d+)\/?$/))) {
      const company = publicCompany(m[1], auth);
      return ok(bookDates(company, query));
    }

    if (method === 'GET' && (m = path.match(/^\/book_times\/(\d+)\/(\d+)\/(\d{4}-\d{2}-\d{2})\/?$/))) {
      const company = publicCompany(m[1], auth);
      const staffId = Number(m[2]);
      if (staffId !== 0 && !findStaff(company, staffId)) throw fail(404, 'Сотрудник не найден.');
      return ok(bookTimes(company, staffId, m[3]!, intList(query.getAll('service_ids[]'))));
    }

    if (method === 'POST' && (m = path.match(/^\/book_check\/(\d+)\/?$/))) {
      const company = publicCompany(m[1], auth);
      const appts = readAppointments(body);
      planAppointments(company, appts);
      return ok(null, { message: 'Created' }, 201);
    }

    if (method === 'POST' && (m = path.match(/^\/book_record\/(\d+)\/?$/))) {
      const company = publicCompany(m[1], auth);
      const b = isObj(body) ? body : {};
      const phone = typeof b.phone === 'string' ? b.phone : '';
      const fullname = typeof b.fullname === 'string' ? b.fullname.trim() : '';
      if (!validPhone(phone)) throw fail(422, 'Неверный формат номера телефона', [{ code: 431, message: 'Неверный формат номера телефона' }]);
      if (fullname === '') throw fail(422, 'Не указано имя клиента', [{ code: 435, message: 'Не указано имя клиента' }]);
      // The blueprint's field table types api_id "string" and its example body sends "777"; its attribute
      // list says number. Both are taken; anything else is not an external id.
      if (b.api_id !== undefined && typeof b.api_id !== 'string' && typeof b.api_id !== 'number') {
        throw fail(422, 'Неверный формат внешнего идентификатора записи');
      }
      const plan = planAppointments(company, readAppointments(body));
      // Checking and occupying happen without an await in between, so two concurrent bookings of
      // one slot can never both succeed.
      const created = plan.map(({ appt, staffId, start, end }) => {
        const rec = addRecord(company, {
          staffId,
          serviceIds: appt.serviceIds,
          start,
          end,
          client: { name: fullname, phone, email: typeof b.email === 'string' ? b.email : '' },
          comment: typeof b.comment === 'string' ? b.comment : '',
          online: true,
          apiId: b.api_id === undefined ? null : String(b.api_id),
        });
        return { id: appt.id, record_id: rec.id, record_hash: rec.hash };
      });
      return ok(created, [], 201);
    }

    if (method === 'DELETE' && (m = path.match(/^\/record\/(\d+)\/(\d+)\/?$/))) {
      // §9: the administrator's cancellation — 204 with an empty body, the record marked deleted, its time free.
      const company = adminCompany(m[1], auth);
      const rec = records.find((r) => r.companyId === company.spec.id && r.id === Number(m![2]) && !r.deleted);
      if (!rec) throw fail(404, 'Запись не найдена');
      rec.deleted = true;
      for (let i = busy.length - 1; i >= 0; i--) if (busy[i]!.recordId === rec.id) busy.splice(i, 1);
      return new HttpAnswer(204, null);
    }

    if (method === 'GET' && (m = path.match(/^\/record\/(\d+)\/(\d+)\/?$/))) {
      // §8: one record in the list's shape; unknown (or deleted: it leaves the lists) → 404.
      const company = adminCompany(m[1], auth);
      const rec = records.find((r) => r.companyId === company.spec.id && r.id === Number(m![2]) && !r.deleted);
      if (!rec) throw fail(404, 'Запись не найдена');
      return ok(recordView(company, rec));
    }

    if (method === 'PUT' && (m = path.match(/^\/record\/(\d+)\/(\d+)\/?$/))) {
      // §10: the administrator moves a record in place; only OTHER records of the specialist stand in the way.
      const company = adminCompany(m[1], auth);
      const rec = records.find((r) => r.companyId === company.spec.id && r.id === Number(m![2]) && !r.deleted);
      if (!rec) throw fail(404, 'Запись не найдена');
      return updateRecord(company, rec, body);
    }

    // §8: client cards by phone or name, and a client's records.
    if (method === 'POST' && (m = path.match(/^\/company\/(\d+)\/clients\/search\/?$/))) return clientsAnswer(cards.search(adminCompany(m[1], auth).spec.id, body));
    if (method === 'GET' && (m = path.match(/^\/clients\/(\d+)\/?$/))) return clientsAnswer(cards.byPhonePart(adminCompany(m[1], auth).spec.id, query));
    if (method === 'GET' && (m = path.match(/^\/records\/(\d+)\/?$/))) {
      const company = adminCompany(m[1], auth);
      return clientsAnswer(listRecords(records, company.spec.id, query, (rec) => recordView(company, rec)));
    }

    if (method === 'POST' && (m = path.match(/^\/records\/(\d+)\/?$/))) {
      const company = adminCompany(m[1], auth);
      return createRecord(company, body);
    }

    throw fail(404, 'Not found');
  }

  // -------------------------------------------------------------------------------------------
  // Authorisation

  function parseAuthorization(header: string | undefined): { partner: string; user: string | null } | null {
    if (!header) return null;
    const m = header.match(/^Bearer\s+([^,\s]+)\s*(?:,\s*User\s+(\S+))?\s*$/);
    if (!m) return null;
    return { partner: m[1]!, user: m[2] ?? null };
  }

  function isKnownPartner(token: string): boolean {
    for (const c of companies.values()) if (c.spec.partnerToken === token) return true;
    return false;
  }

  function authUser(body: unknown, partner: string): HttpAnswer {
    loginCount += 1;
    const b = isObj(body) ? body : {};
    const company = [...companies.values()].find((c) => c.spec.partnerToken === partner && c.spec.login === b.login && c.spec.password === b.password);
    if (!company) return fail(settings.authFailureStatus, 'Неверный логин или пароль');
    const token = `usr${String(nextTokenId++).padStart(4, '0')}${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;
    userTokens.set(token, { login: company.spec.login, partnerToken: partner });
    return ok(
      {
        id: 7700 + company.spec.id,
        user_token: token,
        name: 'Администратор',
        phone: '79160001122',
        login: company.spec.login,
        email: `${company.spec.login}@example.invalid`,
        avatar: '',
        is_approved: true,
        is_email_confirmed: true,
      },
      [],
      201,
    );
  }

  function findCompany(idText: string | undefined): Company {
    const company = companies.get(Number(idText));
    if (!company) throw fail(404, 'Филиал не найден.');
    return company;
  }

  function publicCompany(idText: string | undefined, auth: { partner: string }): Company {
    const company = findCompany(idText);
    if (company.spec.partnerToken !== auth.partner) throw fail(403, 'Access denied.');
    return company;
  }

  function adminCompany(idText: string | undefined, auth: { partner: string; user: string | null }): Company {
    const user = auth.user ? userTokens.get(auth.user) : undefined;
    if (!user || user.partnerToken !== auth.partner) throw fail(401, AUTH_NEEDED);
    const company = findCompany(idText);
    if (company.spec.partnerToken !== auth.partner || company.spec.login !== user.login) {
      throw fail(403, 'Access denied.');
    }
    return company;
  }

  // -------------------------------------------------------------------------------------------
  // Schedule

  function isFree(company: Company, staffId: number, start: number, end: number): boolean {
    const day = localDate(company, start);
    const inHours = workIntervals(company, staffId, day).some((w) => start >= w.start && end <= w.end);
    if (!inHours) return false;
    return !busy.some((b) => b.companyId === company.spec.id && b.staffId === staffId && b.start < end && start < b.end);
  }

  function freeStarts(company: Company, staffId: number, date: string, seconds: number): number[] {
    const starts: number[] = [];
    for (const w of workIntervals(company, staffId, date)) {
      for (let t = w.start; t + seconds * 1000 <= w.end; t += company.stepMs) {
        if (isFree(company, staffId, t, t + seconds * 1000)) starts.push(t);
      }
    }
    return starts;
  }

  function bookTimes(company: Company, staffId: number, date: string, serviceIds: number[]) {
    const byStart = new Map<number, number>();
    for (const s of bookableStaff(company, staffId)) {
      const seconds = durationOf(company, s.id, serviceIds);
      if (seconds === null) continue;
      for (const t of freeStarts(company, s.id, date, seconds)) if (!byStart.has(t)) byStart.set(t, seconds);
    }
    return [...byStart.entries()]
      .sort(([a], [b]) => a - b)
      .map(([t, seconds]) => ({
        time: localTime(company, t),
        seance_length: seconds,
        sum_length: seconds,
        datetime: isoLocal(company, t),
      }));
  }

  function bookDates(company: Company, query: URLSearchParams) {
    const staffId = Number(query.get('staff_id') ?? 0);
    const serviceIds = intList(query.getAll('service_ids[]'));
    const month = query.get('date')?.slice(0, 7) ?? null;
    const staff = bookableStaff(company, staffId);
    const dates = [...new Set((company.spec.workingHours ?? []).map((w) => w.date))].filter((d) => month === null || d.startsWith(month)).sort();
    const working = dates.filter((d) => staff.some((s) => workIntervals(company, s.id, d).length > 0));
    const booking = working.filter((d) =>
      staff.some((s) => {
        const seconds = durationOf(company, s.id, serviceIds);
        return seconds !== null && freeStarts(company, s.id, d, seconds).length > 0;
      }),
    );
    return {
      booking_dates: booking,
      booking_days: byMonth(booking),
      working_dates: working,
      working_days: byMonth(working),
    };
  }

  function slotTaken(company: Company, staffId: number, start: number): HttpAnswer {
    const staff = findStaff(company, staffId);
    const message =
      `К сотруднику ${staff?.name ?? ''} (${staffId}) нельзя записаться на ${localDate(company, start)} в ` +
      `${localTime(company, start)}. Выбранное время уже занято или является нерабочим.`;
    return settings.slotTakenWithCode ? fail(422, 'An error has occurred', [{ code: 433, message }]) : fail(422, message);
  }

  function readAppointments(body: unknown): Appt[] {
    const list = isObj(body) && Array.isArray(body.appointments) ? body.appointments : null;
    if (!list || list.length === 0) throw fail(422, 'Не указаны параметры записи');
    return list.map((a, i) => {
      const o = isObj(a) ? a : {};
      return {
        id: Number(o.id ?? i + 1),
        staffId: Number(o.staff_id ?? 0),
        serviceIds: Array.isArray(o.services) ? o.services.map(Number) : [],
        datetime: typeof o.datetime === 'string' ? o.datetime : '',
      };
    });
  }

  /** Assigns every appointment a specialist and an interval, or throws the API's 422 answer. */
  function planAppointments(company: Company, appts: Appt[]) {
    const planned: { appt: Appt; staffId: number; start: number; end: number }[] = [];
    for (const appt of appts) {
      const start = parseDatetime(company, appt.datetime);
      if (start === null) throw fail(422, 'Неверный формат даты и времени');
      for (const id of appt.serviceIds) {
        if (!company.spec.services.some((s) => s.id === id && s.active !== false)) {
          throw fail(422, 'Услуга недоступна для записи', [{ code: 438, message: 'Услуга недоступна для записи' }]);
        }
      }
      const candidates = bookableStaff(company, appt.staffId);
      if (appt.staffId !== 0 && candidates.length === 0) throw slotTaken(company, appt.staffId, start);
      let chosen: { staffId: number; end: number } | null = null;
      for (const s of candidates) {
        const seconds = durationOf(company, s.id, appt.serviceIds);
        if (seconds === null) continue;
        const end = start + seconds * 1000;
        const overlapsOwn = planned.some((p) => p.staffId === s.id && p.start < end && start < p.end);
        if (overlapsOwn && appt.staffId !== 0) {
          throw fail(422, 'Записи пересекаются по времени', [{ code: 437, message: 'Записи пересекаются по времени' }]);
        }
        if (!overlapsOwn && isFree(company, s.id, start, end)) {
          chosen = { staffId: s.id, end };
          break;
        }
      }
      if (!chosen) {
        if (appt.staffId === 0) {
          throw fail(422, 'Нет сотрудников, доступных для записи', [{ code: 436, message: 'Нет сотрудников, доступных для записи' }]);
        }
        throw slotTaken(company, appt.staffId, start);
      }
      planned.push({ appt, staffId: chosen.staffId, start, end: chosen.end });
    }
    return planned;
  }

  function createRecord(company: Company, body: unknown): HttpAnswer {
    const b = isObj(body) ? body : {};
    const staffId = Number(b.staff_id);
    const staff = findStaff(company, staffId);
    if (!staff) throw fail(404, 'Сотрудник не найден.');
    const client = isObj(b.client) ? b.client : {};
    const phone = typeof client.phone === 'string' ? client.phone : '';
    const name = typeof client.name === 'string' ? client.name.trim() : '';
    if (!validPhone(phone)) throw fail(422, 'Неверный формат номера телефона', [{ code: 431, message: 'Неверный формат номера телефона' }]);
    if (name === '') throw fail(422, 'Не указано имя клиента', [{ code: 435, message: 'Не указано имя клиента' }]);
    const services = Array.isArray(b.services) ? b.services : [];
    const serviceIds = services.map((s) => (isObj(s) ? Number(s.id) : Number(s)));
    if (serviceIds.length === 0) throw fail(422, 'Не указаны услуги');
    for (const id of serviceIds) {
      if (!company.spec.services.some((s) => s.id === id)) throw fail(404, 'Услуга не найдена.');
    }
    const start = typeof b.datetime === 'string' ? parseDatetime(company, b.datetime) : null;
    if (start === null) throw fail(422, 'Неверный формат даты и времени');
    const seconds = Number(b.seance_length) > 0 ? Number(b.seance_length) : (durationOf(company, staffId, serviceIds) ?? 3600);
    const end = start + seconds * 1000;
    if (b.save_if_busy !== true && !isFree(company, staffId, start, end)) throw slotTaken(company, staffId, start);

    const rec = addRecord(company, {
      staffId,
      serviceIds,
      start,
      end,
      client: { name, phone, email: typeof client.email === 'string' ? client.email : '' },
      comment: typeof b.comment === 'string' ? b.comment : '',
      online: false,
      apiId: b.api_id === undefined ? null : String(b.api_id),
    });
    const data = {
      id: rec.id,
      company_id: company.spec.id,
      staff_id: staffId,
      services: services.map((s, i) => {
        const o = isObj(s) ? s : {};
        const spec = company.spec.services.find((x) => x.id === serviceIds[i]);
        return {
          id: serviceIds[i],
          title: spec?.title ?? '',
          cost: Number(o.cost ?? spec?.price_min ?? 0),
          first_cost: Number(o.first_cost ?? o.cost ?? spec?.price_min ?? 0),
          discount: Number(o.discount ?? 0),
          amount: 1,
        };
      }),
      staff: { id: staffId, name: staff.name, specialization: staff.specialization ?? '' },
      client: { id: 1000 + records.length, name, phone, email: rec.client.email },
      date: `${localDate(company, start)} ${localTime(company, start)}:00`,
      datetime: rec.datetime,
      seance_length: seconds,
      length: seconds,
      create_date: isoLocal(company, Date.now()),
      comment: rec.comment,
      online: false,
      attendance: 0,
      confirmed: 1,
      deleted: false,
      api_id: rec.apiId ?? '',
    };
    return ok(settings.recordsDataAsArray ? [data] : data, [], 201);
  }

  function clientsAnswer(a: ClientsAnswer): HttpAnswer {
    if ('message' in a)
      throw new HttpAnswer(a.status, { success: false, data: null, meta: a.errors ? { message: a.message, errors: a.errors } : { message: a.message } });
    return ok(a.data, a.meta, a.status);
  }

  /** PUT /record: every field of POST /records required; the record's own time does not block its new one. */
  function updateRecord(company: Company, rec: FakeRecord, body: unknown): HttpAnswer {
    const b = isObj(body) ? body : {};
    for (const field of ['staff_id', 'services', 'client', 'datetime', 'seance_length', 'save_if_busy', 'send_sms']) {
      if (b[field] === undefined) throw fail(422, `Не указано поле ${field}`);
    }
    const staffId = Number(b.staff_id);
    if (!findStaff(company, staffId)) throw fail(404, 'Сотрудник не найден.');
    const start = typeof b.datetime === 'string' ? parseDatetime(company, b.datetime) : null;
    if (start === null) throw fail(422, 'Неверный формат даты и времени');
    const seconds = Number(b.seance_length) > 0 ? Number(b.seance_length) : rec.seanceLength;
    const end = start + seconds * 1000;
    const own = busy.filter((x) => x.recordId === rec.id);
    for (const x of own) busy.splice(busy.indexOf(x), 1);
    if (b.save_if_busy !== true && !isFree(company, staffId, start, end)) {
      busy.push(...own);
      throw slotTaken(company, staffId, start);
    }
    const services = Array.isArray(b.services) ? b.services : [];
    rec.staffId = staffId;
    rec.serviceIds = services.map((x) => (isObj(x) ? Number(x.id) : Number(x)));
    rec.datetime = isoLocal(company, start);
    rec.seanceLength = seconds;
    if (b.attendance !== undefined) {
      const attendance = Number(b.attendance);
      if (![-1, 0, 1, 2].includes(attendance)) throw fail(422, 'Неверное значение attendance');
      rec.attendance = attendance;
    }
    busy.push({ companyId: company.spec.id, staffId, start, end, recordId: rec.id });
    const data = recordView(company, rec);
    return ok(data, [], 201);
  }

  function addRecord(
    company: Company,
    r: {
      staffId: number;
      serviceIds: number[];
      start: number;
      end: number;
      client: FakeRecord['client'];
      comment: string;
      online: boolean;
      apiId: string | null;
      /** The client card; absent: the first card with the phone, or a new one (as YCLIENTS does); null: none. */
      clientId?: number | null;
    },
  ): FakeRecord {
    const rec: FakeRecord = {
      clientId: r.clientId === undefined ? cards.forRecord(company.spec.id, r.client).id : r.clientId,
      id: nextRecordId++,
      companyId: company.spec.id,
      staffId: r.staffId,
      serviceIds: r.serviceIds,
      datetime: isoLocal(company, r.start),
      seanceLength: Math.round((r.end - r.start) / 1000),
      client: r.client,
      comment: r.comment,
      online: r.online,
      hash: crypto.randomUUID().replace(/-/g, ''),
      apiId: r.apiId,
      deleted: false,
      attendance: 0,
    };
    records.push(rec);
    busy.push({ companyId: company.spec.id, staffId: r.staffId, start: r.start, end: r.end, recordId: rec.id });
    return rec;
  }

  // -------------------------------------------------------------------------------------------
  // Views

  function bookStaff(company: Company, s: FakeStaffSpec) {
    const bookable = s.bookable !== false;
    const nearest = bookable
      ? [...new Set((company.spec.workingHours ?? []).filter((w) => w.staffId === s.id).map((w) => w.date))]
          .sort()
          .find((d) => freeStarts(company, s.id, d, 3600).length > 0)
      : undefined;
    const base: Record<string, unknown> = legacy(
      settings,
      {
        id: s.id,
        name: s.name,
        specialization: s.specialization ?? '',
        position: s.position ?? [],
        bookable,
        weight: 0,
        show_rating: 0,
        rating: 0,
        votes_count: 0,
        comments_count: 0,
        avatar: 'https://example.invalid/avatar.png',
        information: '',
      },
      ['id', 'weight', 'show_rating', 'rating', 'votes_count', 'comments_count'],
    );
    if (nearest) {
      base.seance_date = nearest;
      base.seances = [];
    }
    return base;
  }

  // -------------------------------------------------------------------------------------------
  // Failures

  function takeFailure(method: string, path: string): Failure | null {
    return failures.take(
      (f) => (f.method === undefined || f.method.toUpperCase() === method) && (typeof f.pattern === 'string' ? path.includes(f.pattern) : f.pattern.test(path)),
    );
  }

  function failureAnswer(f: Failure): HttpAnswer {
    if (f.body === undefined) {
      const message =
        f.status === 401
          ? AUTH_NEEDED
          : f.status === 403
            ? 'Access denied.'
            : f.status === 429
              ? 'Too Many Requests'
              : f.status >= 500
                ? 'Internal Server Error'
                : 'An error has occurred';
      return new HttpAnswer(f.status, { success: false, data: null, meta: { message } }, f.headers);
    }
    return new HttpAnswer(f.status, f.body, f.headers);
  }

  return {
    url: `${server.origin}${FAKE_API_PREFIX}`,
    calls,
    get loginCount() {
      return loginCount;
    },
    get records() {
      return records;
    },
    get rateLimited() {
      return rateLimited;
    },
    get settings() {
      return settings;
    },
    set settings(value: FakeYclientsSettings) {
      settings = value;
    },
    addCompany(spec) {
      const offset = spec.utcOffset ?? '+03:00';
      const sign = offset.startsWith('-') ? -1 : 1;
      const [h, mm] = offset.slice(1).split(':').map(Number);
      companies.set(spec.id, {
        spec: structuredClone(spec),
        offset,
        offsetMinutes: sign * ((h ?? 0) * 60 + (mm ?? 0)),
        stepMs: (spec.slotStepMinutes ?? 30) * 60_000,
      });
    },
    markBusy(companyId, staffId, datetime, lengthSeconds = 3600) {
      const company = companies.get(companyId);
      if (!company) throw new Error(`fake YCLIENTS: unknown company ${companyId}`);
      const start = parseDatetime(company, datetime);
      if (start === null) throw new Error(`fake YCLIENTS: bad datetime ${datetime}`);
      busy.push({ companyId, staffId, start, end: start + lengthSeconds * 1000 });
    },
    expireUserTokens() {
      userTokens.clear();
    },
    setAttendance(recordId, attendance) {
      // The salon's administrator marks the visit in YCLIENTS (1 came, -1 did not come, 2 confirmed, 0 waiting).
      const rec = records.find((r) => r.id === recordId);
      if (!rec) throw new Error(`fake YCLIENTS: unknown record ${recordId}`);
      rec.attendance = attendance;
    },
    addClient(companyId, client) {
      return cards.add(companyId, client).id;
    },
    adminRecord(spec) {
      const company = companies.get(spec.companyId);
      const start = company ? parseDatetime(company, spec.datetime) : null;
      if (!company || start === null) throw new Error(`fake YCLIENTS: unknown company ${spec.companyId} or bad datetime ${spec.datetime}`);
      const seconds = spec.lengthSeconds ?? durationOf(company, spec.staffId, spec.serviceIds) ?? 3600;
      const client = spec.clientId ? cards.cards.find((c) => c.id === spec.clientId) : undefined;
      return addRecord(company, {
        staffId: spec.staffId,
        serviceIds: spec.serviceIds,
        start,
        end: start + seconds * 1000,
        client: { name: client?.name ?? spec.client?.name ?? '', phone: client?.phone ?? spec.client?.phone ?? '', email: '' },
        comment: 'Запись администратора',
        online: false,
        apiId: null,
        clientId: spec.clientId ?? (spec.client ? undefined : null),
      });
    },
    failNext(pathPattern, failure) {
      failures.add({ ...failure, pattern: pathPattern }, failure.times ?? 1);
    },
    reset() {
      companies.clear();
      userTokens.clear();
      busy.length = 0;
      records.length = 0;
      cards.clear();
      failures.clear();
      calls.length = 0;
      settings = structuredClone(DEFAULT_SETTINGS);
      loginCount = 0;
      rateLimited = 0;
      arrivals.clear();
      server.releaseHeld();
    },
    close: () => server.close(),
  };
}
