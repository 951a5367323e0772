// What tests hand the fake YCLIENTS and read back from it: companies with their staff, services and working
// hours, recorded calls, failures, records and settings. The fake itself (test/fakes/yclients.ts) re-exports
// them, so tests import from there.
export interface FakeStaffSpec {
  id: number;
  name: string;
  specialization?: string;
  position?: { id: number; title: string };
  /** Default true. False: shown, but no online booking. */
  bookable?: boolean;
  fired?: boolean;
  /** Hidden from online booking. */
  hidden?: boolean;
}

export interface FakeServiceSpec {
  id: number;
  title: string;
  price_min: number;
  price_max: number;
  /** Seconds. */
  duration: number;
  category_id?: number;
  /** Who performs it; default: every staff member. */
  staffIds?: number[];
  /** Per-specialist duration in seconds, overriding `duration`. */
  staffDurations?: Record<number, number>;
  active?: boolean;
}

/** One working interval of a specialist on a date, local company time ("10:00"–"18:00"). */
export interface FakeWorkingHours {
  staffId: number;
  date: string;
  start: string;
  end: string;
}

export interface FakeCompanySpec {
  id: number;
  partnerToken: string;
  /** Credentials of the company's administrator for POST /auth. */
  login: string;
  password: string;
  title?: string;
  /** Company UTC offset used in every datetime, default "+03:00". */
  utcOffset?: string;
  /** IANA zone GET /company/{id} names (default Europe/Moscow); keep it consistent with utcOffset. */
  timeZone?: string;
  /** Step between offered starts, default 30 minutes. */
  slotStepMinutes?: number;
  staff: FakeStaffSpec[];
  services: FakeServiceSpec[];
  workingHours?: FakeWorkingHours[];
}

export interface RecordedCall {
  method: string;
  /** Path relative to /api/v1, without the query string, e.g. "/book_times/1/2/2026-12-01". */
  path: string;
  /** Raw query string without "?" (brackets decoded), e.g. "service_ids[]=90211". */
  query: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body, the raw text when not JSON, or null. */
  body: unknown;
}

export interface FailureSpec {
  status: number;
  /** Object: sent as JSON. String: sent raw. null: empty body. Absent: a standard error envelope. */
  body?: unknown;
  headers?: Record<string, string>;
  /** How many matching calls fail; default 1. */
  times?: number;
  /** Only calls with this method. */
  method?: string;
  /** Hold the answer this long (a hang past the client's timeout); released by close(). */
  delayMs?: number;
}

export interface FakeRecord {
  id: number;
  companyId: number;
  staffId: number;
  serviceIds: number[];
  datetime: string;
  /** Seconds. */
  seanceLength: number;
  client: { name: string; phone: string; email: string };
  comment: string;
  /** True for book_record, false for POST /records. */
  online: boolean;
  hash: string;
  apiId: string | null;
  /** Deleted by DELETE /record (YCLIENTS' cancellation): kept, as `with_deleted=1` would show it. */
  deleted: boolean;
  /** §8: 2 confirmed, 1 came, 0 waiting, -1 did not come; PUT /record's optional `attendance` sets it. */
  attendance: number;
  /** §8: the client card the record belongs to; null: a record without a client (`client: null`). */
  clientId: number | null;
}

export interface FakeYclientsSettings {
  /**
   * Status of a rejected POST /auth. 401: the Altegio reference (YCLIENTS' international edition, same API)
   * documents Response 201 and Response 401 for POST /v1/auth; the YCLIENTS blueprint lists no error answer.
   */
  authFailureStatus: number;
  /** Return ids, prices and flags of staff/services as strings, like older endpoints do. */
  legacyStrings: boolean;
  /** POST /records answers `data` as an array (Altegio) instead of one object (YCLIENTS blueprint). */
  recordsDataAsArray: boolean;
  /** Include `meta.errors: [{code: 433}]` in slot-taken answers (Altegio); false gives the blueprint's bare message. */
  slotTakenWithCode: boolean;
  /**
   * Requests per client address allowed in any second and in any minute (sliding windows); beyond them
   * HTTP 429, the request not served and not counted. null: no limit.
   */
  rateLimit: { perSecond: number; perMinute: number } | null;
  /** Retry-After seconds sent with a limit's 429; null sends none (whether YCLIENTS sends it is unconfirmed). */
  rateLimitRetryAfter: number | null;
  /**
   * GET /company/{id}: the blueprint's "Получить компанию" example names the zone in `timezone`
   * ("Europe/Moscow"); company objects of newer answers carry the hour offset in `timezone` (3) and the
   * name in `timezone_name`. 'none' leaves both out.
   */
  companyTimezoneShape: 'name' | 'offset' | 'none';
}

export interface FakeYclients {
  /** Base URL for the client, e.g. http://127.0.0.1:54321/api/v1. */
  url: string;
  calls: RecordedCall[];
  /** Calls of POST /auth so far (successful or not). */
  readonly loginCount: number;
  /** Records created through book_record and POST /records. */
  readonly records: FakeRecord[];
  /** Requests answered 429 because a client went over the rate limit. */
  readonly rateLimited: number;
  settings: FakeYclientsSettings;
  addCompany(spec: FakeCompanySpec): void;
  /** Occupies a specialist from `datetime` (ISO with or without offset) for `lengthSeconds` (default 3600). */
  markBusy(companyId: number, staffId: number, datetime: string, lengthSeconds?: number): void;
  /** The salon marks a visit in YCLIENTS (§8 `attendance`: 1 came, -1 did not come, 2 confirmed, 0 waiting); GET /record(s) show it. */
  setAttendance(recordId: number, attendance: -1 | 0 | 1 | 2): void;
  /** Invalidates every user token handed out so far: the next administrator call answers 401. */
  expireUserTokens(): void;
  /** §8: a client card (several may share a phone); returns its id. */
  addClient(companyId: number, client: { name: string; phone: string }): number;
  /**
   * A record the salon's administrator writes in YCLIENTS itself (a phone call, the widget): for the card
   * `clientId`, else for `client` (the first card with its phone, or a new one), else with no client.
   */
  adminRecord(spec: {
    companyId: number;
    staffId: number;
    serviceIds: number[];
    datetime: string;
    lengthSeconds?: number;
    clientId?: number;
    client?: { name: string; phone: string };
  }): FakeRecord;
  /** The next matching call(s) answer `failure` instead. A string pattern matches as a substring of the path. */
  failNext(pathPattern: string | RegExp, failure: FailureSpec): void;
  /** Forgets companies, records, tokens, failures, calls and settings. */
  reset(): void;
  close(): Promise<void>;
}
