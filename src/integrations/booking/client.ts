// Typed client for the YCLIENTS REST API v1 (response format 2.0).
// Wire format and its uncertainties: docs/integrations/yclients.md. The client is deliberately tolerant
// where the reference is: numbers may arrive as strings, `meta` may be [] or {}, `data` of a created
// record may be an object or an array, and errors come in two body shapes.

import type { YclientsLimiter } from './limiter';
import { failureMessage, httpCall, HttpCallNetworkError, isRecord, parseJson, redact, type CallFailure } from '../http-call';
import { asArray, bool, isString, num, str } from './client-values';

export const YCLIENTS_ACCEPT = 'application/vnd.yclients.v2+json';

const DEFAULT_TIMEOUT_MS = 10_000;
/** With a limiter, a 429 is tried again this many times, each after the pause it asked for (or a back-off). */
const RATE_LIMIT_RETRIES = 4;
/** Back-off after a 429 without Retry-After: 1 s, doubled per retry. */
const RATE_LIMIT_BACKOFF_MS = 1000;
/** The longest wait a 429 may impose on someone waiting (a live call), and on background work. */
const MAX_LIVE_RATE_LIMIT_WAIT_MS = 10_000;
const MAX_BACKGROUND_RATE_LIMIT_WAIT_MS = 120_000;

/** The subset of `fetch` the client needs; lets tests and callers inject their own transport. */
export type YclientsFetch = (input: string, init: RequestInit) => Promise<Response>;

export interface YclientsClientOptions {
  /** Config's YCLIENTS_BASE_URL, e.g. https://api.yclients.com/api/v1 (a trailing slash is tolerated). */
  baseUrl: string;
  partnerToken: string;
  fetch?: YclientsFetch;
  /** Per request, including reading the body (not the wait for the limiter). Default 10 s. */
  timeoutMs?: number;
  /**
   * The process-wide gate that keeps every request within YCLIENTS' limits; with it a 429 pauses the gate
   * and the request is tried again (Retry-After when YCLIENTS sends it). Without it a 429 is the caller's.
   */
  limiter?: YclientsLimiter;
}

/**
 * What went wrong, decided on the HTTP status first (the body shapes are not reliable enough):
 * - `auth`: 401 (partner or user token rejected — renew the user token once and retry), 402/403
 *   (licence expired, no rights, client blacklisted), and `POST /auth` rejected with 400/401/403/422 (wrong login or password).
 * - `not_found`: 404 — unknown company, staff member, service or record.
 * - `slot_busy`: the chosen time is taken or is not working time (422 with internal code 433/437 or the
 *   matching text), or an undocumented 409.
 * - `validation`: 400 and any other 422 (bad phone 431, no name 435, no specialist 436, service gone 438…).
 * - `rate_limited`: 429 (200 requests/min or 5/s per IP); see `retryAfterSeconds`.
 * - `server`: 5xx.
 * - `unexpected`: anything else, including a 2xx without a usable envelope.
 */
export type YclientsErrorKind = 'auth' | 'not_found' | 'slot_busy' | 'validation' | 'rate_limited' | 'server' | 'unexpected';

/** YCLIENTS answered, but not with success. The message never carries a token or password. */
export class YclientsApiError extends Error {
  override readonly name = 'YclientsApiError';
  readonly kind: YclientsErrorKind;
  readonly status: number;
  /** Internal YCLIENTS code (431–438, 434…) when the body carries one. */
  readonly code: number | null;
  /** Every message of `meta.errors` / `errors`, redacted. */
  readonly details: string[];
  readonly method: string;
  /** Path relative to the base URL, without the query string. */
  readonly path: string;
  /** From a 429's Retry-After header when present. */
  readonly retryAfterSeconds: number | null;

  constructor(init: {
    kind: YclientsErrorKind;
    status: number;
    message: string;
    code: number | null;
    details: string[];
    method: string;
    path: string;
    retryAfterSeconds: number | null;
  }) {
    super(init.message);
    this.kind = init.kind;
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.method = init.method;
    this.path = init.path;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }

  /** True when the user token (or partner token) was refused: the one case where re-login may help. */
  get tokenRejected(): boolean {
    return this.status === 401;
  }
}

/** YCLIENTS could not be reached, or did not answer within the timeout. */
export class YclientsNetworkError extends HttpCallNetworkError {
  override readonly name = 'YclientsNetworkError';
}

// ---------------------------------------------------------------------------------------------
// Shapes returned by the client (normalised: camelCase, numbers as numbers, durations in seconds).

/** A specialist, from either the online-booking view (`/book_staff`) or the administrator view. */
export interface YclientsStaff {
  id: number;
  name: string;
  specialization: string;
  positionTitle: string | null;
  /** Online-booking view only: whether the specialist has free sessions. Null in the administrator view. */
  bookable: boolean | null;
  /** Administrator view: dismissed. */
  fired: boolean;
  /** Administrator view: hidden from online booking. */
  hidden: boolean;
  /** Administrator view: `status` 1 means deleted. */
  deleted: boolean;
  avatar: string | null;
  /** Online-booking view: nearest date with free sessions (YYYY-MM-DD), when bookable. */
  seanceDate: string | null;
}

/** A service. Prices are in the company's currency units as YCLIENTS gives them (may be fractional). */
export interface YclientsService {
  id: number;
  title: string;
  categoryId: number | null;
  priceMin: number;
  priceMax: number;
  discount: number;
  comment: string;
  /** `active` 1: available for online booking. */
  active: boolean;
  /** Online-booking view with a staff filter: duration for that specialist, seconds. */
  seanceLength: number | null;
  /** Administrator view: who performs it and how long it takes them, seconds. */
  staff: { id: number; seanceLength: number }[];
}

export interface YclientsServiceFilter {
  /** Services performed by this specialist (online view then also reports `seanceLength`). */
  staffId?: number;
}

export interface YclientsStaffFilter {
  /** Online-booking view: specialists who perform all these services. */
  serviceIds?: number[];
}

/** `GET /company/{id}`: the company's name and where its day starts. */
export interface YclientsCompany {
  id: number;
  title: string;
  /** IANA zone from `timezone_name`, or from `timezone` when that holds a name; null when neither does. */
  timeZone: string | null;
  /** Offset from UTC when `timezone` is a number of hours (newer answers); null otherwise. */
  utcOffsetMinutes: number | null;
}

/** One free start of `GET /book_times`. Pass `datetime` back unchanged when booking. */
export interface YclientsBookTime {
  /** Local time label, e.g. "10:00". */
  time: string;
  /** ISO 8601 with the company's UTC offset. */
  datetime: string;
  /** Seconds. */
  seanceLength: number;
  /** Seconds; only in newer answers. */
  sumLength: number | null;
}

export interface YclientsBookDatesQuery {
  /** 0 or absent: any specialist. */
  staffId?: number;
  serviceIds?: number[];
  /** Any date inside the month of interest, YYYY-MM-DD. */
  date?: string;
}

export interface YclientsBookDates {
  /** Dates with free sessions, YYYY-MM-DD. */
  bookingDates: string[];
  /** Dates the specialist/company works, YYYY-MM-DD. */
  workingDates: string[];
}

/** One appointment of an online booking (`book_check` / `book_record`). */
export interface YclientsAppointment {
  /** Caller's own number, echoed back in the answer. */
  id: number;
  serviceIds: number[];
  /** 0: any specialist. */
  staffId: number;
  /** As received from `getBookTimes`. */
  datetime: string;
}

export interface YclientsBookRecordInput {
  /** Digits, e.g. 79161234567. */
  phone: string;
  fullname: string;
  email?: string;
  comment?: string;
  /** Hours before the visit; 0 = no reminder. */
  notifyBySms?: number;
  notifyByEmail?: number;
  /** SMS confirmation code, only when the company demands phone confirmation. */
  code?: string;
  apiId?: string;
  appointments: YclientsAppointment[];
}

export interface YclientsBookedAppointment {
  /** The caller's appointment id. */
  id: number;
  recordId: number;
  /** Lets an unauthenticated caller delete the record right after creation. */
  recordHash: string;
}

export interface YclientsRecordService {
  id: number;
  /** Price after discount, currency units. */
  cost: number;
  /** Price before discount; defaults to `cost`. */
  firstCost?: number;
  /** Percent; defaults to 0. */
  discount?: number;
}

/** `POST /records/{company_id}`: an appointment created by an administrator (partner + user token). */
export interface YclientsCreateRecordInput {
  staffId: number;
  services: YclientsRecordService[];
  client: { phone: string; name: string; email?: string };
  /** ISO 8601 with offset, as received from `getBookTimes`. */
  datetime: string;
  /** Seconds. */
  seanceLength: number;
  /** Default false: YCLIENTS refuses a busy or non-working time instead of double-booking it. */
  saveIfBusy?: boolean;
  /** Default false. */
  sendSms?: boolean;
  comment?: string;
  apiId?: string;
  /** §8: 2 marks the visit confirmed by the client (the record's `attendance`); omitted leaves it as it is. */
  attendance?: -1 | 0 | 1 | 2;
}

export interface YclientsRecord {
  id: number;
  companyId: number | null;
  staffId: number | null;
  serviceIds: number[];
  datetime: string | null;
  /** Seconds. */
  seanceLength: number | null;
  clientName: string | null;
  clientPhone: string | null;
  comment: string;
  /** §8: 2 confirmed, 1 came, 0 waiting, -1 did not come; null when the answer has none. */
  attendance: number | null;
  /** `deleted` is boolean in records, 0/1 in visit answers (§8). */
  deleted: boolean;
}

/** §8: a client card found by `clients/search`; several cards may share one phone. */
export interface YclientsClientCard {
  id: number;
  name: string;
  /** As YCLIENTS shows it (`+7…`): compare digits only. */
  phone: string;
}

export interface YclientsClient {
  /** `POST /auth` → the user token of an administrator. Wrong login/password → `YclientsApiError` kind `auth`. */
  authUser(credentials: { login: string; password: string }): Promise<string>;
  /** With a user token: administrator view (`/company/{id}/staff`); without: online-booking view (`/book_staff/{id}`). */
  getStaff(companyId: number, userToken?: string, filter?: YclientsStaffFilter): Promise<YclientsStaff[]>;
  /** With a user token: administrator view (`/company/{id}/services`); without: online view (`/book_services/{id}`). */
  getServices(companyId: number, userToken?: string, filter?: YclientsServiceFilter): Promise<YclientsService[]>;
  /** `GET /company/{id}` (partner token): the company, with its time zone. */
  getCompany(companyId: number): Promise<YclientsCompany>;
  /** `GET /book_dates/{id}`: dates of a month with free sessions. */
  getBookDates(companyId: number, query?: YclientsBookDatesQuery): Promise<YclientsBookDates>;
  /** `GET /book_times/{id}/{staff}/{date}`: free starts for one day; [] for a day off. staffId 0 = anyone. */
  getBookTimes(companyId: number, staffId: number, date: string, serviceIds: number[]): Promise<YclientsBookTime[]>;
  /** `POST /book_check/{id}`: resolves when every appointment can be booked, throws (e.g. `slot_busy`) otherwise. */
  bookCheck(companyId: number, appointments: YclientsAppointment[]): Promise<void>;
  /** `POST /book_record/{id}`: online booking on behalf of a client (partner token only). */
  bookRecord(companyId: number, input: YclientsBookRecordInput): Promise<YclientsBookedAppointment[]>;
  /** `POST /records/{id}`: administrator booking; a taken time → `YclientsApiError` kind `slot_busy`. */
  createRecord(companyId: number, input: YclientsCreateRecordInput, userToken: string): Promise<YclientsRecord>;
  /**
   * `DELETE /record/{id}/{record_id}` (administrator): cancels a record — YCLIENTS has no other cancel.
   * 204 with an empty body; an unknown or already deleted record → `YclientsApiError` kind `not_found`.
   */
  deleteRecord(companyId: number, recordId: number, userToken: string): Promise<void>;
  /**
   * `PUT /record/{id}/{record_id}` (administrator, §10): the record moved to a new time (or specialist) in
   * place — its own old time does not stand in the way, as it does for book-new-then-cancel-old. The body
   * is the whole record as for `POST /records`; a time taken by another record → `slot_busy`.
   */
  updateRecord(companyId: number, recordId: number, input: YclientsCreateRecordInput, userToken: string): Promise<YclientsRecord>;
  /** `GET /record/{id}/{record_id}` (administrator, §8): one record as the list gives it; null when YCLIENTS has none (404). */
  getRecord(companyId: number, recordId: number, userToken: string): Promise<YclientsRecord | null>;
  /** §8 `POST /company/{id}/clients/search` (`quick_search`, administrator): the cards whose phone, name or card number holds `value`. */
  searchClients(companyId: number, value: string, userToken: string): Promise<YclientsClientCard[]>;
  /** §8 `GET /records/{id}?client_id=` (administrator): one card's records of visits from `startDate` on, every page; deleted ones left out. */
  getClientRecords(companyId: number, clientId: number, startDate: string, userToken: string): Promise<YclientsRecord[]>;
}

/** §8: page sizes of the client search (≤ 200) and of the record list; a short page is the last. */
const CLIENTS_PAGE_SIZE = 50;
const RECORDS_PAGE_SIZE = 200;
/** A card with more pages of records than this is cut off there (a loop guard, not a limit anyone reaches). */
const MAX_RECORD_PAGES = 10;

// ---------------------------------------------------------------------------------------------

type Query = Record<string, string | number | (string | number)[] | undefined>;

interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
  userToken?: string;
  /** Secrets of this call besides the tokens (the password of /auth), scrubbed from error messages. */
  secrets?: string[];
  /** Classifies a rejected call differently (e.g. /auth: every 4xx means bad credentials). */
  kindFor?: (status: number, fallback: YclientsErrorKind) => YclientsErrorKind;
}

interface Envelope {
  status: number;
  data: unknown;
  meta: unknown;
}

export function createYclientsClient(options: YclientsClientOptions): YclientsClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch: YclientsFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const partnerToken = options.partnerToken;

  async function call(spec: RequestSpec): Promise<Envelope> {
    const secrets = [partnerToken, spec.userToken ?? '', ...(spec.secrets ?? [])];
    const url = baseUrl + spec.path + encodeQuery(spec.query);
    const headers: Record<string, string> = {
      Accept: YCLIENTS_ACCEPT,
      'Content-Type': 'application/json',
      Authorization: spec.userToken ? `Bearer ${partnerToken}, User ${spec.userToken}` : `Bearer ${partnerToken}`,
    };
    const limiter = options.limiter;

    let response: Response;
    let text: string;
    for (let attempt = 1; ; attempt++) {
      await limiter?.acquire();
      // The timeout starts once the gate lets the request through.
      const init: RequestInit = { method: spec.method, headers };
      if (spec.body !== undefined) init.body = JSON.stringify(spec.body);
      const outcome = await httpCall(doFetch, url, init, { timeoutMs });
      if (!outcome.ok) throw networkError(outcome, spec, timeoutMs, secrets);
      response = outcome.response;
      text = outcome.text;
      if (response.status !== 429 || !limiter || attempt > RATE_LIMIT_RETRIES) break;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      const wait = asked ?? RATE_LIMIT_BACKOFF_MS * 2 ** (attempt - 1);
      const longest = limiter.priority() === 'live' ? MAX_LIVE_RATE_LIMIT_WAIT_MS : MAX_BACKGROUND_RATE_LIMIT_WAIT_MS;
      // Everyone waits: the limit is the address's. Someone waiting gets the 429 rather than a long silence.
      limiter.pause(Math.min(wait, MAX_BACKGROUND_RATE_LIMIT_WAIT_MS));
      if (wait > longest) break;
    }

    const body = parseJson(text);
    const status = response.status;

    if (status >= 200 && status < 300) {
      if (isRecord(body) && body.success === true) {
        return { status, data: body.data ?? null, meta: body.meta ?? null };
      }
      // book_check's older description promises an empty 201; only the status matters there.
      if (text.trim() === '' || (isRecord(body) && body.success === undefined && !('errors' in body))) {
        return { status, data: isRecord(body) ? (body.data ?? null) : null, meta: null };
      }
      throw apiError(status, body, spec, secrets, response.headers, 'unexpected');
    }
    throw apiError(status, body, spec, secrets, response.headers, kindForStatus(status, body));
  }

  return {
    async authUser({ login, password }) {
      const { data } = await call({
        method: 'POST',
        path: '/auth',
        body: { login, password },
        secrets: [password],
        // The status for wrong credentials is not documented (401 or 422); a 404 stays not_found
        // because it means a wrong base URL rather than a wrong password.
        kindFor: (status, fallback) => ([400, 401, 403, 422].includes(status) ? 'auth' : fallback),
      });
      const token = isRecord(data) ? data.user_token : undefined;
      if (typeof token === 'string' && token !== '') return token;
      // A two-factor login answers 200 with `data: {uuid}` and no token: unusable for a service.
      throw new YclientsApiError({
        kind: 'auth',
        status: 200,
        message: 'YCLIENTS did not return a user token (two-factor confirmation required?)',
        code: null,
        details: [],
        method: 'POST',
        path: '/auth',
        retryAfterSeconds: null,
      });
    },

    async getStaff(companyId, userToken, filter) {
      if (userToken) {
        const { data } = await call({ method: 'GET', path: `/company/${companyId}/staff`, userToken });
        return asArray(data).map(parseStaff);
      }
      const { data } = await call({
        method: 'GET',
        path: `/book_staff/${companyId}`,
        query: { 'service_ids[]': filter?.serviceIds },
      });
      return asArray(data).map(parseStaff);
    },

    async getServices(companyId, userToken, filter) {
      if (userToken) {
        const { data } = await call({
          method: 'GET',
          path: `/company/${companyId}/services`,
          query: { staff_id: filter?.staffId },
          userToken,
        });
        return asArray(data).map(parseService);
      }
      const { data } = await call({
        method: 'GET',
        path: `/book_services/${companyId}`,
        query: { staff_id: filter?.staffId },
      });
      // The online view wraps the list: {events, services, category}.
      const list = isRecord(data) ? data.services : data;
      return asArray(list).map(parseService);
    },

    async getCompany(companyId) {
      const { data } = await call({ method: 'GET', path: `/company/${companyId}` });
      const c = isRecord(data) ? data : {};
      const named = [c.timezone_name, c.timezone].find((v): v is string => typeof v === 'string' && isTimeZoneName(v));
      const hours = typeof c.timezone === 'number' ? c.timezone : null;
      return {
        id: num(c.id) ?? companyId,
        title: str(c.title),
        timeZone: named ?? null,
        utcOffsetMinutes: hours !== null && Number.isFinite(hours) && Math.abs(hours) <= 14 ? Math.round(hours * 60) : null,
      };
    },

    async getBookDates(companyId, query = {}) {
      const { data } = await call({
        method: 'GET',
        path: `/book_dates/${companyId}`,
        query: { staff_id: query.staffId, 'service_ids[]': query.serviceIds, date: query.date },
      });
      const d = isRecord(data) ? data : {};
      return {
        bookingDates: asArray(d.booking_dates).filter(isString),
        workingDates: asArray(d.working_dates).filter(isString),
      };
    },

    async getBookTimes(companyId, staffId, date, serviceIds) {
      const { data } = await call({
        method: 'GET',
        path: `/book_times/${companyId}/${staffId}/${date}`,
        query: { 'service_ids[]': serviceIds },
      });
      return asArray(data)
        .filter(isRecord)
        .map((t) => ({
          time: str(t.time),
          datetime: str(t.datetime),
          seanceLength: num(t.seance_length) ?? 0,
          sumLength: num(t.sum_length),
        }));
    },

    async bookCheck(companyId, appointments) {
      await call({
        method: 'POST',
        path: `/book_check/${companyId}`,
        body: { appointments: appointments.map(appointmentBody) },
      });
    },

    async bookRecord(companyId, input) {
      const body: Record<string, unknown> = {
        phone: input.phone,
        fullname: input.fullname,
        appointments: input.appointments.map(appointmentBody),
      };
      if (input.email !== undefined) body.email = input.email;
      if (input.comment !== undefined) body.comment = input.comment;
      if (input.notifyBySms !== undefined) body.notify_by_sms = input.notifyBySms;
      if (input.notifyByEmail !== undefined) body.notify_by_email = input.notifyByEmail;
      if (input.code !== undefined) body.code = input.code;
      if (input.apiId !== undefined) body.api_id = input.apiId;
      const { data } = await call({ method: 'POST', path: `/book_record/${companyId}`, body });
      return asArray(data)
        .filter(isRecord)
        .map((r) => ({ id: num(r.id) ?? 0, recordId: num(r.record_id) ?? 0, recordHash: str(r.record_hash) }));
    },

    async createRecord(companyId, input, userToken) {
      return writeRecord('POST', `/records/${companyId}`, input, userToken);
    },

    async updateRecord(companyId, recordId, input, userToken) {
      return writeRecord('PUT', `/record/${companyId}/${recordId}`, input, userToken);
    },

    async getRecord(companyId, recordId, userToken) {
      try {
        const { data } = await call({ method: 'GET', path: `/record/${companyId}/${recordId}`, userToken });
        const record = Array.isArray(data) ? data[0] : data;
        return isRecord(record) && num(record.id) !== null ? parseRecord(record) : null;
      } catch (error) {
        if (error instanceof YclientsApiError && error.kind === 'not_found') return null;
        throw error;
      }
    },

    async searchClients(companyId, value, userToken) {
      const filters = [{ type: 'quick_search', state: { value } }];
      const body = { page: 1, page_size: CLIENTS_PAGE_SIZE, fields: ['id', 'name', 'phone'], filters };
      const { data } = await call({ method: 'POST', path: `/company/${companyId}/clients/search`, body, userToken });
      return asArray(data)
        .filter(isRecord)
        .map((c) => ({ id: num(c.id) ?? 0, name: str(c.name), phone: str(c.phone) }))
        .filter((c) => c.id > 0);
    },

    async getClientRecords(companyId, clientId, startDate, userToken) {
      const found: YclientsRecord[] = [];
      for (let page = 1; page <= MAX_RECORD_PAGES; page++) {
        const query = { client_id: clientId, start_date: startDate, page, count: RECORDS_PAGE_SIZE };
        const { data } = await call({ method: 'GET', path: `/records/${companyId}`, query, userToken });
        const items = asArray(data).filter(isRecord);
        for (const r of items) if (num(r.id) !== null) found.push(parseRecord(r));
        if (items.length < RECORDS_PAGE_SIZE) break;
      }
      return found;
    },

    async deleteRecord(companyId, recordId, userToken) {
      // 204 and no body: call() takes an empty 2xx as success without parsing it.
      await call({ method: 'DELETE', path: `/record/${companyId}/${recordId}`, userToken });
    },
  };

  /** POST /records and PUT /record take the same body and answer the record (one object, or an array of one). */
  async function writeRecord(method: 'POST' | 'PUT', path: string, input: YclientsCreateRecordInput, userToken: string): Promise<YclientsRecord> {
    const client: Record<string, string> = { phone: input.client.phone, name: input.client.name };
    if (input.client.email !== undefined) client.email = input.client.email;
    const body: Record<string, unknown> = {
      staff_id: input.staffId,
      services: input.services.map((s) => ({
        id: s.id,
        first_cost: s.firstCost ?? s.cost,
        discount: s.discount ?? 0,
        cost: s.cost,
      })),
      client,
      datetime: input.datetime,
      seance_length: input.seanceLength,
      save_if_busy: input.saveIfBusy ?? false,
      send_sms: input.sendSms ?? false,
    };
    if (input.comment !== undefined) body.comment = input.comment;
    if (input.apiId !== undefined) body.api_id = input.apiId;
    if (input.attendance !== undefined) body.attendance = input.attendance;
    const { status, data } = await call({ method, path, body, userToken });
    // The blueprint shows one object, the Altegio reference an array of records.
    const record = Array.isArray(data) ? data[0] : data;
    if (!isRecord(record) || num(record.id) === null) {
      throw new YclientsApiError({
        kind: 'unexpected',
        status,
        message: 'YCLIENTS wrote a record but returned no record id',
        code: null,
        details: [],
        method,
        path,
        retryAfterSeconds: null,
      });
    }
    return parseRecord(record);
  }
}

// ---------------------------------------------------------------------------------------------
// Errors

function kindForStatus(status: number, body: unknown): YclientsErrorKind {
  if (status === 401 || status === 402 || status === 403) return 'auth';
  if (status === 404) return 'not_found';
  if (status === 409) return 'slot_busy';
  if (status === 422) return isSlotTaken(body) ? 'slot_busy' : 'validation';
  if (status === 400) return 'validation';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'server';
  return 'unexpected';
}

/** Codes 433 (time taken / not working time) and 437 (overlap inside the request). */
const SLOT_TAKEN_CODES = new Set([433, 437]);
// The YCLIENTS blueprint's 433 example carries only the text, no code; the code for a busy
// `POST /records` is not documented at all — hence the text match as a fallback.
const SLOT_TAKEN_TEXT = /занято|нерабоч|пересека|already (taken|booked)|is busy|not available|non-working/i;

function isSlotTaken(body: unknown): boolean {
  const { code, messages } = readError(body);
  if (code !== null && SLOT_TAKEN_CODES.has(code)) return true;
  if (code !== null) return false;
  return messages.some((m) => SLOT_TAKEN_TEXT.test(m));
}

const GENERIC_MESSAGE = /^(an error has occurred|error|произошла ошибка)\.?$/i;

/** Reads `meta.message`, `meta.errors[]` and the alternative `errors` object/array. */
function readError(body: unknown): { message: string | null; code: number | null; messages: string[] } {
  const messages: string[] = [];
  let code: number | null = null;
  let message: string | null = null;
  if (!isRecord(body)) return { message, code, messages };

  const meta = body.meta;
  if (isRecord(meta) && typeof meta.message === 'string' && meta.message !== '') {
    message = meta.message;
    messages.push(meta.message);
  }
  const errorLists = [isRecord(meta) ? meta.errors : undefined, body.errors];
  for (const errors of errorLists) {
    const items = Array.isArray(errors) ? errors : isRecord(errors) ? [errors] : [];
    for (const item of items) {
      if (typeof item === 'string') {
        messages.push(item);
        continue;
      }
      if (!isRecord(item)) continue;
      const c = num(item.code);
      if (code === null && c !== null) code = c;
      if (typeof item.message === 'string' && item.message !== '') {
        messages.push(item.message);
        message ??= item.message;
      }
    }
  }
  // The Altegio shape says only "An error has occurred" in meta.message and the reason in meta.errors.
  const specific = messages.find((m) => m !== message);
  if (message !== null && GENERIC_MESSAGE.test(message) && specific) message = specific;
  if (message === null && typeof body.message === 'string') message = body.message;
  return { message, code, messages: [...new Set(messages)] };
}

function apiError(status: number, body: unknown, spec: RequestSpec, secrets: string[], headers: Headers, fallbackKind: YclientsErrorKind): YclientsApiError {
  const kind = spec.kindFor ? spec.kindFor(status, fallbackKind) : fallbackKind;
  const { message, code, messages } = readError(body);
  const retryAfter = (retryAfterMs(headers.get('retry-after')) ?? 0) / 1000;
  return new YclientsApiError({
    kind,
    status,
    message: redact(message ?? `YCLIENTS ${spec.method} ${spec.path} answered HTTP ${status}`, secrets),
    code,
    details: messages.map((m) => redact(m, secrets)),
    method: spec.method,
    path: spec.path,
    retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  });
}

function networkError(failure: CallFailure, spec: RequestSpec, timeoutMs: number, secrets: string[]): YclientsNetworkError {
  return new YclientsNetworkError({
    message: failureMessage(`YCLIENTS ${spec.method} ${spec.path}`, failure, timeoutMs, secrets),
    method: spec.method,
    path: spec.path,
    timedOut: failure.timedOut,
  });
}

// ---------------------------------------------------------------------------------------------
// Parsing

function parseStaff(raw: unknown): YclientsStaff {
  const s = isRecord(raw) ? raw : {};
  const position = isRecord(s.position) ? s.position : null;
  return {
    id: num(s.id) ?? 0,
    name: str(s.name),
    specialization: str(s.specialization),
    positionTitle: position && typeof position.title === 'string' ? position.title : null,
    bookable: s.bookable === undefined || s.bookable === null ? null : bool(s.bookable),
    fired: bool(s.fired),
    hidden: bool(s.hidden),
    deleted: num(s.status) === 1,
    avatar: typeof s.avatar === 'string' && s.avatar !== '' ? s.avatar : null,
    seanceDate: typeof s.seance_date === 'string' && s.seance_date !== '' ? s.seance_date : null,
  };
}

function parseService(raw: unknown): YclientsService {
  const s = isRecord(raw) ? raw : {};
  return {
    id: num(s.id) ?? 0,
    title: str(s.title),
    categoryId: num(s.category_id),
    priceMin: num(s.price_min) ?? 0,
    priceMax: num(s.price_max) ?? num(s.price_min) ?? 0,
    discount: num(s.discount) ?? 0,
    comment: str(s.comment),
    active: s.active === undefined ? true : bool(s.active),
    seanceLength: num(s.seance_length),
    staff: asArray(s.staff)
      .filter(isRecord)
      .map((st) => ({ id: num(st.id) ?? 0, seanceLength: num(st.seance_length) ?? 0 })),
  };
}

function parseRecord(r: Record<string, unknown>): YclientsRecord {
  const client = isRecord(r.client) ? r.client : {};
  const staff = isRecord(r.staff) ? r.staff : {};
  return {
    id: num(r.id) ?? 0,
    companyId: num(r.company_id),
    staffId: num(r.staff_id) ?? num(staff.id),
    serviceIds: asArray(r.services)
      .map((s) => (isRecord(s) ? num(s.id) : num(s)))
      .filter((id): id is number => id !== null),
    datetime: typeof r.datetime === 'string' ? r.datetime : null,
    seanceLength: num(r.seance_length) ?? num(r.length),
    clientName: typeof client.name === 'string' ? client.name : null,
    clientPhone: typeof client.phone === 'string' ? client.phone : null,
    comment: str(r.comment),
    attendance: num(r.attendance) ?? num(r.visit_attendance),
    deleted: r.deleted === true || r.deleted === 1 || r.deleted === '1',
  };
}

function appointmentBody(a: YclientsAppointment) {
  return { id: a.id, services: a.serviceIds, staff_id: a.staffId, datetime: a.datetime };
}

/** Array parameters use brackets: service_ids[]=1&service_ids[]=2. */
function encodeQuery(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** Retry-After as seconds or as an HTTP date, in milliseconds; null when absent or unreadable. */
function retryAfterMs(header: string | null): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : null;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

/** A zone name this process can compute dates in ("Europe/Moscow"); "3" or "" is none. */
function isTimeZoneName(value: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
