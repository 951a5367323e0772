// The only reader of process.env. Everything else receives a Config.
import { resolve } from 'node:path';
import { z } from 'zod';
import { unitsToNano, unitsToNanoRounded } from './money';
import { parseAddressRange } from './http/address-ranges';
import { loadDevSecrets } from './dev-secrets';
import { resolveWorkers, workersFromEnv, type WorkersSetting } from './workers-config';

/**
 * The default of YOOKASSA_NOTIFICATION_IPS: the senders YooKassa publishes
 * (yookassa.ru/developers/using-api/webhooks#ip), checked by payments/notification-senders.ts.
 */
export const YOOKASSA_NOTIFICATION_RANGES = [
  '185.71.76.0/27',
  '185.71.77.0/27',
  '77.75.153.0/25',
  '77.75.154.128/25',
  '77.75.156.11',
  '77.75.156.35',
  '2a02:5180::/32',
] as const;

const intFromEnv = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const urlWithoutTrailingSlash = z.url().transform((url) => url.replace(/\/+$/, ''));

function isTimeZoneName(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

const boolFromEnv = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => v === 'true' || v === '1' || v === 'yes');

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: intFromEnv(0, 65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    .optional(),
  DATA_DIR: z.string().min(1).default('./.data'),
  JWT_SECRET: z
    .string()
    .refine((s) => Buffer.byteLength(s) >= 32, 'must be at least 32 bytes')
    .optional(),
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
    .optional(),
  // Former keys stay readable after a rotation: comma-separated 64-hex keys.
  ENCRYPTION_KEY_PREVIOUS: z
    .string()
    .optional()
    .transform((s) =>
      s
        ? s
            .split(',')
            .map((k) => k.trim())
            .filter(Boolean)
        : [],
    )
    .pipe(z.array(z.string().regex(/^[0-9a-fA-F]{64}$/, 'each key must be 64 hex characters'))),
  UPSTREAM_BASE_URL: urlWithoutTrailingSlash.default('https://openrouter.ai/api/v1'),
  UPSTREAM_API_KEY: z.string().optional(),
  /** The API the built-in provider `default` speaks: OpenAI's chat completions or Anthropic's Messages. */
  UPSTREAM_PROTOCOL: z.enum(['openai', 'anthropic'], { error: 'must be openai or anthropic' }).default('openai'),
  // Below Bun's longest idle timeout (255 s), so a quiet stream is ended by us, not cut by the server.
  UPSTREAM_TIMEOUT_MS: intFromEnv(100, 250_000).default(60_000),
  PUBLIC_BASE_URL: urlWithoutTrailingSlash.optional(),
  TOKEN_PRICE: z.coerce.number().positive().max(1000).default(1.25e-7),
  /** A model no price row covers: `default` bills it at TOKEN_PRICE, `refuse` answers 400 model_not_found. */
  UNPRICED_MODELS: z.enum(['default', 'refuse'], { error: 'must be default or refuse' }).default('default'),
  VK_API_BASE_URL: urlWithoutTrailingSlash.default('https://api.vk.com/method'),
  TELEGRAM_API_BASE_URL: urlWithoutTrailingSlash.default('https://api.telegram.org'),
  YCLIENTS_BASE_URL: urlWithoutTrailingSlash.default('https://api.yclients.com/api/v1'),
  /**
   * Where the assistant may download a VK voice message's audio (its link_ogg / link_mp3): comma-separated
   * base URLs; a link is fetched when its scheme and port are a base's and its host is that host or under it.
   */
  VK_AUDIO_BASE_URLS: z
    .string()
    .default('https://userapi.com,https://vkuseraudio.net,https://vk.com,https://mycdn.me')
    .transform((list, ctx) => {
      const bases = list
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      for (const base of bases) {
        if (!URL.canParse(base)) ctx.addIssue({ code: 'custom', message: `not a URL: ${base}` });
      }
      return bases;
    }),
  /** The largest audio file POST /v1/audio/transcriptions takes (OpenAI's limit: 25 MB); the request's body may be 64 KiB more. */
  AUDIO_MAX_BYTES: intFromEnv(1024, 1024 * 1024 * 1024).default(25 * 1024 * 1024),
  /** Seconds of audio reserved for a transcription whose length its file's header does not tell. */
  AUDIO_MAX_SECONDS: intFromEnv(1, 86_400).default(1500),
  /** Tokens a second of audio is reserved for (input and output each) on a token-priced transcription model. */
  AUDIO_TOKENS_PER_SECOND: intFromEnv(1, 10_000).default(25),
  /** The model an assistant transcribes voice messages with when its owner chose none. */
  TRANSCRIPTION_MODEL: z.string().trim().min(1).default('openai/whisper-1'),
  /** Completion tokens reserved for a request that names no max_tokens. */
  RESERVE_COMPLETION_TOKENS: intFromEnv(1, 10_000_000).default(4096),
  /** How much of a user's balance an instance sets aside at a time (in currency units). */
  LEASE_CHUNK: z.coerce.number().positive().max(1_000_000).default(0.1),
  /** Usage rows and settlements are written in batches at most this late. */
  USAGE_FLUSH_MS: intFromEnv(1, 60_000).default(50),
  /** Raw usage rows are dropped (whole months) once older than this many days; 0 keeps them. Totals stay. */
  USAGE_RETENTION_DAYS: intFromEnv(0, 36_500).default(0),
  /** How long GET /v1/models serves the upstream's list before asking again. */
  MODELS_CACHE_SECONDS: intFromEnv(1, 86_400).default(300),
  /** How long an answer of the response cache (gateway/response-cache) serves identical requests. */
  CACHE_TTL_SECONDS: intFromEnv(1, 30 * 86_400).default(3600),
  /** What a cache hit costs, as a share of the price its answer's tokens have now; exact to 1e-9. */
  CACHE_HIT_PRICE_RATIO: z.coerce.number().min(0).max(1).default(0.1),
  /**
   * A prompt token the provider read from its cache, as a share of the model's prompt price, where the price
   * row names no cached price of its own; exact to 1e-9.
   */
  CACHE_READ_PRICE_RATIO: z.coerce.number().min(0).max(1).default(0.1),
  /** A prompt token the provider wrote to its cache, as a share of the prompt price (no price of its own); exact to 1e-9. */
  CACHE_WRITE_PRICE_RATIO: z.coerce.number().min(0).max(10).default(1.25),
  /** How often the booking integration refreshes its caches for agents with sync on (spec: 10 minutes). */
  BOOKING_SYNC_INTERVAL_SECONDS: intFromEnv(1, 86_400).default(600),
  /** Where a shop's day starts: the date in order numbers ORD-<YYYYMMDD>-<n>. */
  ORDER_TIME_ZONE: z
    .string()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'expected an IANA time zone such as Europe/Moscow')
    .default('Europe/Moscow'),
  /** Model of a new agent that names none (the form the gateway accepts: owner/model). */
  DEFAULT_AGENT_MODEL: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._:@+-]*$/, 'must look like owner/model')
    .default('openai/gpt-4o-mini'),
  /** Model calls one client message may cost (each tool result goes back to the model in another call). */
  ASSISTANT_MAX_STEPS: intFromEnv(1, 50).default(6),
  /** Tool calls of one model answer that run; the rest are answered with an error (a model stuck in a loop). */
  ASSISTANT_MAX_TOOL_CALLS: intFromEnv(1, 100).default(8),
  /** Upcoming appointments one client may have made through the assistant's model. */
  ASSISTANT_MAX_BOOKINGS_PER_CLIENT: intFromEnv(1, 100).default(3),
  /** Unpaid orders one client may have placed through the assistant's model. */
  ASSISTANT_MAX_OPEN_ORDERS_PER_CLIENT: intFromEnv(1, 100).default(3),
  /** Per Bot API call, including reading the answer. */
  TELEGRAM_TIMEOUT_MS: intFromEnv(100, 120_000).default(10_000),
  /**
   * A client's messages this close together (each within this long of the one before) are answered once,
   * as one model turn; buttons and triggers act at once. 0: every message is answered on its own.
   */
  ASSISTANT_DEBOUNCE_MS: intFromEnv(0, 60_000).default(1500),
  /**
   * A client handed to a person who has had no answer from one this long goes back to the assistant, and is
   * told so (counted from the next working day's start when handed over outside the agent's working hours).
   * Fractions allowed; 0: a hand-over never times out.
   */
  HANDOFF_TIMEOUT_MINUTES: z.coerce
    .number()
    .min(0)
    .max(7 * 24 * 60)
    .default(30),
  /** Messages one client may send the assistant a minute; over it they are kept but not answered. 0: no limit. */
  ASSISTANT_CLIENT_MESSAGES_PER_MINUTE: intFromEnv(0, 10_000).default(20),
  /**
   * A worker's claim on a client's burst lasts this long and is renewed every third of it while the turn
   * runs; one not renewed (a crashed worker) is claimed again by another.
   */
  ASSISTANT_TURN_LEASE_SECONDS: intFromEnv(3, 3600).default(300),
  /** How often the outbox worker looks for due messages (it is also woken at once by local writes). */
  OUTBOX_POLL_INTERVAL_MS: intFromEnv(10, 600_000).default(1000),
  /** First retry delay after a 5xx or network failure; doubled per attempt, capped at one hour. */
  OUTBOX_RETRY_BASE_MS: intFromEnv(10, 3_600_000).default(5000),
  /** Attempts before a message is given up as failed (a 429 wait does not count). */
  OUTBOX_MAX_ATTEMPTS: intFromEnv(1, 1000).default(12),
  BODY_LIMIT_BYTES: intFromEnv(1024, 1024 * 1024 * 1024).default(10 * 1024 * 1024),
  /** Closing-document (PDF) requests that may wait for their turn; the next one is a 503 with Retry-After. */
  PDF_QUEUE_MAX_WAITING: intFromEnv(0, 100_000).default(50),
  /** Days a счёт на оплату waits for its transfer; past them a pending счёт is cancelled. */
  INVOICE_VALID_DAYS: intFromEnv(1, 365).default(10),
  /** How often the expiry job cancels pending счета past their date (0: never; they still read as cancelled). */
  INVOICE_EXPIRY_SECONDS: intFromEnv(0, 86_400).default(300),
  /** Share of a referred account's top-ups credited to its referrer, in percent (0: off; up to 4 decimals). */
  REFERRAL_PERCENT: z.coerce.number().min(0).max(100).default(0),
  REFERRAL_MONTHS: intFromEnv(1, 1200).default(12),
  REFERRAL_SAME_DOMAIN: z.enum(['allow', 'refuse']).default('allow'),
  /** The most of one upstream answer that is not a stream (and of an error body) Conduit reads: past it, 502. */
  UPSTREAM_MAX_BODY_BYTES: intFromEnv(1024, 1024 * 1024 * 1024).default(32 * 1024 * 1024),
  MAX_KEYS_PER_USER: intFromEnv(1, 10_000).default(50),
  /** Agents one user may own: each brings its own knowledge base (2,000 entries), integrations and dialogues. */
  MAX_AGENTS_PER_USER: intFromEnv(1, 10_000).default(20),
  /** A key's default requests per minute on /v1 (its own `rpm` replaces it); 0 = none. */
  RATE_LIMIT_PER_MINUTE: intFromEnv(0, 1_000_000).default(0),
  /** A key's default tokens per minute (`tpm`); 0 = none. */
  RATE_LIMIT_TOKENS_PER_MINUTE: intFromEnv(0, 1_000_000_000).default(0),
  /** A key's default requests per UTC day (`rpd`); 0 = none. */
  RATE_LIMIT_PER_DAY: intFromEnv(0, 1_000_000_000).default(0),
  /** Requests per minute of all a user's API keys together on /v1; 0 = no such ceiling. */
  RATE_LIMIT_PER_USER_PER_MINUTE: intFromEnv(0, 1_000_000).default(0),
  /** Tokens per minute of all a user's keys together; 0 = none. */
  RATE_LIMIT_PER_USER_TOKENS_PER_MINUTE: intFromEnv(0, 1_000_000_000).default(0),
  /** Requests per UTC day of all a user's keys together; 0 = none. */
  RATE_LIMIT_PER_USER_PER_DAY: intFromEnv(0, 1_000_000_000).default(0),
  SHUTDOWN_GRACE_MS: intFromEnv(0, 600_000).default(10_000),
  /** Accounts (comma-separated e-mails) that may be admins once their address is proven (accounts/admin-role.ts). */
  ADMIN_EMAILS: z
    .string()
    .optional()
    .transform((s) =>
      s
        ? s
            .split(',')
            .map((e) => e.trim().toLowerCase())
            .filter(Boolean)
        : [],
    ),
  /** ISO 4217 code of the balance currency: top-ups are taken in it, prices and balances are shown in it. */
  BALANCE_CURRENCY: z
    .string()
    .regex(/^[A-Z]{3}$/, 'expected a three-letter ISO 4217 code such as RUB')
    .default('RUB'),
  YOOKASSA_SHOP_ID: z.string().optional(),
  YOOKASSA_SECRET_KEY: z.string().optional(),
  YOOKASSA_API_BASE_URL: urlWithoutTrailingSlash.default('https://api.yookassa.ru/v3'),
  /** YooKassa's vat_code (1–6, or up to 12 for newer rates): when set, every top-up carries a receipt. */
  YOOKASSA_RECEIPT_VAT_CODE: intFromEnv(1, 12).optional(),
  TOPUP_MIN_AMOUNT: z.coerce.number().positive().max(1_000_000_000).default(10),
  TOPUP_MAX_AMOUNT: z.coerce.number().positive().max(1_000_000_000).default(100_000),
  /** Pending top-ups older than this are re-read from YooKassa, so a lost notification still credits. */
  TOPUP_RECHECK_SECONDS: intFromEnv(1, 86_400).default(300),
  /** Unpaid (pending) top-ups one user may have at once; the next is refused until one is paid or closed. */
  TOPUP_MAX_PENDING: intFromEnv(1, 1000).default(5),
  /**
   * Upstream requests one instance holds open at once. Bun's fetch allows 256 unless the process starts
   * with BUN_CONFIG_MAX_HTTP_REQUESTS: src/index.ts restarts itself in place with that set when it is lower.
   */
  UPSTREAM_MAX_CONNECTIONS: intFromEnv(1, 65_535).default(4096),
  /** Read, not set, here: the runtime's own limit this process started with (Bun's default is 256). */
  BUN_CONFIG_MAX_HTTP_REQUESTS: intFromEnv(1, 65_535).optional(),
  /**
   * The memory (MiB) the JavaScript engine sizes its heap growth by, as if the machine had that much
   * (BUN_JSC_forceRAMSize, Bun's equivalent of Node's --max-old-space-size: a heuristic, not a cap).
   * Left to the machine's RAM, the garbage collector lets the heap grow to ~200 MiB under load; 256 keeps
   * the peak ~35 MiB lower at no measured cost (bench/RESULTS.md). 0: the runtime's own sizing.
   */
  MEMORY_TARGET_MB: intFromEnv(0, 1_048_576).default(256),
  /** Read, not set, here: what the runtime started with. */
  BUN_JSC_forceRAMSize: intFromEnv(0, Number.MAX_SAFE_INTEGER).optional(),
  /** Server processes sharing the port, or `auto` (one per core); PostgreSQL only (src/workers-config.ts). */
  WORKERS: workersFromEnv.optional(),
  /** Set by src/supervisor.ts on each process it starts (its number); never by an operator. */
  CONDUIT_WORKER: intFromEnv(1, 64).optional(),
  /** When set, GET /metrics wants `Authorization: Bearer <METRICS_TOKEN>`; unset, it is open. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * Browser origins allowed to call the service (comma-separated, e.g. `https://app.example.com`).
   * /v1 allows any origin (`*`) by default: its keys are bearer tokens and no cookie is involved, so a
   * foreign page gains nothing it could not do with the key anyway. The dashboard API answers only the
   * origins listed here (a `*` does not reach it); unset, only its own page, which needs no CORS.
   */
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((s) =>
      s
        ? s
            .split(',')
            .map((o) => o.trim().replace(/\/+$/, ''))
            .filter(Boolean)
        : ['*'],
    )
    .refine((list) => list.every((o) => o === '*' || /^https?:\/\/[^/\s]+$/.test(o)), 'expected * or origins such as https://app.example.com'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  LOG_REQUESTS: boolFromEnv.default(true),

  // What any client, even an unauthenticated one, can hold open or make the server spend (README,
  // "Configuration"; how Bun enforces the first two: src/http/connection-guard.ts).
  /**
   * How long a request's body may take to arrive once its headers are in; a body still arriving then
   * is cut (the connection closed), at most 8 s later. Bun's timers count whole seconds, up to 255.
   */
  REQUEST_RECEIVE_TIMEOUT_MS: intFromEnv(1000, 250_000).default(30_000),
  /** Requests one client address may have in flight at once; beyond it 429 (0: no cap). */
  MAX_CONNECTIONS_PER_ADDRESS: intFromEnv(0, 1_000_000).default(1024),
  /** How long GET /health/upstream answers from its last probe instead of asking the upstream again (0: always asks). */
  UPSTREAM_HEALTH_CACHE_SECONDS: intFromEnv(0, 3600).default(5),
  /** Providers one /v1 request may try, the first included, before it answers with the last failure. */
  ROUTE_MAX_ATTEMPTS: intFromEnv(1, 10).default(3),
  /** Times a minute one API key's requests may go on to another provider after a timeout (each may cost one more generation). */
  ROUTE_TIMEOUT_FAILOVERS_PER_MINUTE: intFromEnv(0, 1_000_000).default(20),
  /** Failures in a row that put a provider in cooldown. */
  PROVIDER_FAILURE_THRESHOLD: intFromEnv(1, 1000).default(5),
  /** How long a provider in cooldown is skipped before one trial request decides. */
  PROVIDER_COOLDOWN_SECONDS: intFromEnv(1, 86_400).default(30),
  /** How often a provider in cooldown or disabled for faults is probed (GET /models, or a 1-token chat); 0: never. */
  PROVIDER_PROBE_SECONDS: intFromEnv(0, 86_400).default(30),
  /** With PROVIDER_FAILURE_WINDOW: this share of faults among a provider's last requests puts it in cooldown. */
  PROVIDER_FAILURE_RATIO: z.coerce.number().positive().max(1).default(0.5),
  /** The last requests (per instance) the failure ratio is taken over; 0: only failures in a row count. */
  PROVIDER_FAILURE_WINDOW: intFromEnv(0, 10_000).default(20),
  /** How often the providers' balances are read where they expose one (OpenRouter, or a URL set on the provider); 0: never. */
  PROVIDER_BALANCE_SECONDS: intFromEnv(0, 86_400).default(300),
  /** The built-in provider's balance below which the operators are mailed (its own currency); unset: no alert. */
  UPSTREAM_BALANCE_THRESHOLD: z.coerce.number().min(0).max(1_000_000_000).optional(),

  // Accounts against abuse: free-credit farming and password guessing (README, "Operating it").
  /**
   * Which address a request comes from. Unset/false: the socket's (X-Forwarded-For is never read);
   * true: the left-most X-Forwarded-For entry (only behind a proxy that overwrites the header);
   * N: the N-th entry from the right, i.e. what the outermost of N trusted proxies saw.
   */
  TRUST_PROXY: z
    .string()
    .regex(/^(true|false|yes|no|\d{1,2})$/, 'expected true, false or the number of trusted proxies (0–99)')
    .transform((v): boolean | number => (v === 'true' || v === 'yes' ? true : v === 'false' || v === 'no' ? false : Number(v) || false))
    .default(false),
  /** Registrations per client address per hour, counted in the database (0: no limit). */
  REGISTRATION_LIMIT_PER_HOUR: intFromEnv(0, 1_000_000).default(20),
  /** Promo code attempts per account per hour (promotions/), counted in the database (0: no limit). */
  PROMO_ATTEMPTS_PER_HOUR: intFromEnv(0, 1_000_000).default(20),
  /** The same per client address. */
  PROMO_ATTEMPTS_PER_HOUR_PER_ADDRESS: intFromEnv(0, 1_000_000).default(60),
  /** Credited to a new account (at registration, or when its e-mail is verified); exact to 1e-9. */
  REGISTRATION_BONUS: z.coerce.number().min(0).max(1_000_000).default(3),
  /** The bonus waits until the user opens a one-time link mailed through SMTP_URL. */
  REQUIRE_EMAIL_VERIFICATION: boolFromEnv.default(false),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/\S+$/, 'must start with smtp:// or smtps://')
    .optional(),
  SMTP_FROM: z.string().min(3).max(320).optional(),
  /** How users reach the operator (an e-mail, a page's address, a phone): named to blocked users and on the login page. */
  SUPPORT_CONTACT: z.string().trim().min(3).max(200).optional(),
  /**
   * Alert webhooks (GET|PUT /api/account/alerts) may point at loopback and private addresses. Off by
   * default: a user's URL must not reach into the operator's network (SSRF). The test suite turns it on
   * to receive webhooks on 127.0.0.1.
   */
  ALERT_WEBHOOK_ALLOW_PRIVATE: boolFromEnv.default(false),
  /** Alert webhook calls that may wait per account; queuing another drops the oldest (logged). */
  ALERT_WEBHOOK_MAX_QUEUED: intFromEnv(1, 10_000).default(20),
  /** Failed logins from one client address before each further attempt from it waits (1 s, doubling). */
  LOGIN_MAX_FAILURES: intFromEnv(1, 1000).default(10),
  /**
   * The same for one e-mail from all addresses together: slows guessing spread over many addresses. It
   * holds back only addresses that have already failed on the e-mail, so it cannot lock the owner out.
   */
  LOGIN_ACCOUNT_MAX_FAILURES: intFromEnv(1, 100_000).default(50),
  /** The longest wait the doubling reaches. */
  LOGIN_LOCKOUT_SECONDS: intFromEnv(1, 86_400).default(300),
  /** Failure counts start over this long after their first failure. */
  LOGIN_FAILURE_WINDOW_SECONDS: intFromEnv(60, 604_800).default(3600),
  /** Password-reset requests per hour for one e-mail (all addresses together); 0: no limit. */
  PASSWORD_RESET_LIMIT_PER_EMAIL: intFromEnv(0, 1_000_000).default(5),
  /** Password-reset requests per hour from one client address (TRUST_PROXY decides it); 0: no limit. */
  PASSWORD_RESET_LIMIT_PER_ADDRESS: intFromEnv(0, 1_000_000).default(30),
  /** Wrong two-factor codes per account (all addresses together) within an hour before the factor locks. */
  TOTP_MAX_FAILURES: intFromEnv(1, 1000).default(5),
  /** How long the locked factor refuses every code, the right one too. */
  TOTP_LOCKOUT_SECONDS: intFromEnv(1, 86_400).default(900),

  // Third-party services' own limits and addresses (README, "Configuration").
  /**
   * YCLIENTS requests this instance sends in any second and in any minute. YCLIENTS allows one address 5 and
   * 200 (its API Blueprint); instances that share an address should share that allowance between them.
   */
  YCLIENTS_RATE_PER_SECOND: intFromEnv(1, 1000).default(5),
  YCLIENTS_RATE_PER_MINUTE: intFromEnv(1, 1_000_000).default(200),
  /** Where a salon's day starts (the sync's "today") when YCLIENTS' company data names no time zone. */
  YCLIENTS_TIME_ZONE: z.string().refine(isTimeZoneName, 'expected an IANA time zone such as Europe/Moscow').default('Europe/Moscow'),
  /**
   * Addresses and CIDR ranges YooKassa sends HTTP notifications from (comma-separated), checked on the
   * notifications of top-ups and of shops. Default: the list YooKassa publishes. Set empty (or to a list
   * that names nothing, such as ",") to switch the check off, for a proxy that hides senders' addresses.
   */
  YOOKASSA_NOTIFICATION_IPS: z
    .string()
    .transform((s) =>
      s
        .split(',')
        .map((e) => e.trim())
        .filter(Boolean),
    )
    .refine((list) => list.every((e) => parseAddressRange(e) !== null), 'expected IP addresses or CIDR ranges such as 185.71.76.0/27')
    .optional(),
});

export type Env = z.input<typeof envSchema>;

export interface Config {
  nodeEnv: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl: string | undefined;
  dataDir: string;
  jwtSecret: string;
  encryptionKey: string;
  encryptionKeyPrevious: string[];
  upstreamBaseUrl: string;
  upstreamApiKey: string | undefined;
  upstreamProtocol: 'openai' | 'anthropic';
  upstreamTimeoutMs: number;
  publicBaseUrl: string;
  /** Price of one token in nano-units (1e-9 of the balance currency). */
  tokenPriceNano: bigint;
  /** The configured price as given, for display in the information document. */
  tokenPrice: number;
  vkApiBaseUrl: string;
  telegramApiBaseUrl: string;
  yclientsBaseUrl: string;
  vkAudioBaseUrls: string[];
  audioMaxBytes: number;
  audioMaxSeconds: number;
  audioTokensPerSecond: number;
  transcriptionModel: string;
  reserveCompletionTokens: number;
  leaseChunkNano: bigint;
  usageFlushMs: number;
  usageRetentionDays: number;
  modelsCacheSeconds: number;
  cacheTtlSeconds: number;
  /** CACHE_HIT_PRICE_RATIO in billionths (0.1 → 100_000_000n), so a hit's price is exact in bigint. */
  cacheHitPriceRatioNano: bigint;
  /** CACHE_READ_PRICE_RATIO in billionths (0.1 → 100_000_000n): a cached prompt token's default price is exact. */
  cacheReadPriceRatioNano: bigint;
  /** CACHE_WRITE_PRICE_RATIO in billionths (1.25 → 1_250_000_000n). */
  cacheWritePriceRatioNano: bigint;
  bookingSyncIntervalSeconds: number;
  orderTimeZone: string;
  defaultAgentModel: string;
  assistantMaxSteps: number;
  /** ASSISTANT_MAX_TOOL_CALLS: tool calls of one model answer that run. */
  assistantMaxToolCalls: number;
  /** ASSISTANT_TURN_LEASE_SECONDS: a turn's claim, renewed every third of it while the turn runs. */
  assistantTurnLeaseSeconds: number;
  /** ASSISTANT_MAX_BOOKINGS_PER_CLIENT: upcoming appointments one client may make through the model. */
  assistantMaxBookingsPerClient: number;
  /** ASSISTANT_MAX_OPEN_ORDERS_PER_CLIENT: unpaid orders one client may place through the model. */
  assistantMaxOpenOrdersPerClient: number;
  telegramTimeoutMs: number;
  outboxPollIntervalMs: number;
  assistantDebounceMs: number;
  handoffTimeoutMinutes: number;
  assistantClientMessagesPerMinute: number;
  outboxRetryBaseMs: number;
  outboxMaxAttempts: number;
  bodyLimitBytes: number;
  pdfQueueMaxWaiting: number;
  invoiceValidDays: number;
  invoiceExpirySeconds: number;
  /** REFERRAL_*: `shareMillionths` is the percent in millionths of the amount (7.5 % → 75_000n), exact in bigint. */
  referral: { percent: number; shareMillionths: bigint; months: number; sameDomain: 'allow' | 'refuse' };
  upstreamMaxBodyBytes: number;
  maxKeysPerUser: number;
  maxAgentsPerUser: number;
  rateLimitPerMinute: number;
  rateLimitTokensPerMinute: number;
  rateLimitPerDay: number;
  rateLimitPerUserPerMinute: number;
  rateLimitPerUserTokensPerMinute: number;
  rateLimitPerUserPerDay: number;
  shutdownGraceMs: number;
  upstreamMaxConnections: number;
  metricsToken: string | undefined;
  /** CORS_ORIGINS: `*` and/or exact origins; see src/http/cors.ts. */
  corsOrigins: string[];
  /** The fetch limit this process runs with (BUN_CONFIG_MAX_HTTP_REQUESTS at start, else Bun's 256). */
  runtimeMaxHttpRequests: number;
  /** MEMORY_TARGET_MB in bytes (0: unset), and what the runtime started with (null: its own sizing). */
  memoryTargetBytes: number;
  runtimeForcedRamBytes: number | null;
  workers: WorkersSetting;
  /** This process's number when src/supervisor.ts started it as a worker; null otherwise. */
  workerNumber: number | null;
  adminEmails: string[];
  balanceCurrency: string;
  /** Both set, or top-ups are off. */
  yookassa: { shopId: string; secretKey: string } | null;
  yookassaApiBaseUrl: string;
  yookassaReceiptVatCode: number | undefined;
  topupMinNano: bigint;
  topupMaxNano: bigint;
  topupRecheckSeconds: number;
  topupMaxPending: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  logRequests: boolean;

  // What any client can hold open or make the server spend.
  requestReceiveTimeoutMs: number;
  /** 0: no cap. */
  maxConnectionsPerAddress: number;
  upstreamHealthCacheSeconds: number;
  routeMaxAttempts: number;
  routeTimeoutFailoversPerMinute: number;
  unpricedModels: 'default' | 'refuse';
  providerFailureThreshold: number;
  providerCooldownSeconds: number;
  /** 0: no probes. */
  providerProbeSeconds: number;
  providerFailureRatio: number;
  /** 0: no failure ratio rule. */
  providerFailureWindow: number;
  /** 0: balances are not read. */
  providerBalanceSeconds: number;
  /** Nano-units of the built-in provider's own currency; null: no alert. */
  upstreamBalanceThresholdNano: bigint | null;

  // Accounts against abuse.
  /** false: the socket's address; true: left-most X-Forwarded-For; N: N-th X-Forwarded-For entry from the right. */
  trustProxy: boolean | number;
  /** 0: no limit. */
  registrationLimitPerHour: number;
  /** 0: no limit. */
  promoAttemptsPerHour: number;
  /** 0: no limit. */
  promoAttemptsPerHourPerAddress: number;
  registrationBonusNano: bigint;
  requireEmailVerification: boolean;
  /** Outgoing mail; always set when e-mail verification is required. */
  smtp: { url: string; from: string } | null;
  /** SUPPORT_CONTACT: shown to blocked users, on the login and account pages; undefined when unset. */
  supportContact: string | undefined;
  /** ALERT_WEBHOOK_ALLOW_PRIVATE: alert webhooks may go to loopback/private addresses. */
  alertWebhookAllowPrivate: boolean;
  /** ALERT_WEBHOOK_MAX_QUEUED: undelivered alert webhook calls kept per account. */
  alertWebhookMaxQueued: number;
  loginMaxFailures: number;
  loginAccountMaxFailures: number;
  loginLockoutSeconds: number;
  loginFailureWindowSeconds: number;
  passwordResetLimitPerEmail: number;
  passwordResetLimitPerAddress: number;
  totpMaxFailures: number;
  totpLockoutSeconds: number;

  // Third-party services' own limits and addresses.
  yclientsRatePerSecond: number;
  yclientsRatePerMinute: number;
  yclientsTimeZone: string;
  /** YooKassa's notification senders: YOOKASSA_NOTIFICATION_IPS, or the published list; empty: not checked. */
  yookassaNotificationIps: string[];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface LoadedConfig {
  config: Config;
  /** Human-readable notes for the start-up log (for example, generated development secrets). */
  warnings: string[];
}

/**
 * Converts a decimal price such as "1.25e-7" into exact nano-units without going through
 * binary floating point arithmetic on the result.
 */
export function priceToNano(price: number): bigint {
  const [mantissa = '0', exponentText = '0'] = price.toExponential().split('e');
  const exponent = Number(exponentText);
  const [intPart = '0', fracPart = ''] = mantissa.split('.');
  const digits = BigInt(intPart + fracPart);
  // value = digits * 10^(exponent - fracPart.length); nano = value * 10^9
  const shift = exponent - fracPart.length + 9;
  if (shift >= 0) return digits * 10n ** BigInt(shift);
  const divisor = 10n ** BigInt(-shift);
  if (digits % divisor !== 0n) {
    throw new ConfigError('TOKEN_PRICE: must be a whole number of 1e-9 units');
  }
  return digits / divisor;
}

/** An amount in currency units with at most two decimals (kopecks), as payments are taken. */
function currencyToNano(name: string, amount: number): bigint {
  const cents = Math.round(amount * 100);
  if (Math.abs(cents - amount * 100) > 1e-6) throw new ConfigError(`${name}: at most two decimals`);
  return BigInt(cents) * 10_000_000n;
}

/**
 * The environment to restart this process with so that Bun's fetch allows UPSTREAM_MAX_CONNECTIONS
 * requests at once and its garbage collector sizes the heap by MEMORY_TARGET_MB (Bun reads both
 * BUN_CONFIG_MAX_HTTP_REQUESTS and BUN_JSC_forceRAMSize only when a process starts), or null when the
 * runtime already runs so. RELAUNCHED guards against a loop should the runtime ignore a value.
 */
export function relaunchEnvironment(
  config: Pick<Config, 'upstreamMaxConnections' | 'runtimeMaxHttpRequests' | 'memoryTargetBytes' | 'runtimeForcedRamBytes'>,
  env: Record<string, string | undefined> = process.env,
): Record<string, string> | null {
  const fetchLimitShort = config.runtimeMaxHttpRequests < config.upstreamMaxConnections;
  // An operator's own BUN_JSC_forceRAMSize wins; MEMORY_TARGET_MB applies when the runtime has none.
  const memoryUnset = config.memoryTargetBytes > 0 && config.runtimeForcedRamBytes === null;
  if ((!fetchLimitShort && !memoryUnset) || env.CONDUIT_RELAUNCHED) return null;
  const next: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) next[key] = value;
  if (fetchLimitShort) next.BUN_CONFIG_MAX_HTTP_REQUESTS = String(config.upstreamMaxConnections);
  if (memoryUnset) next.BUN_JSC_forceRAMSize = String(config.memoryTargetBytes);
  next.CONDUIT_RELAUNCHED = '1';
  return next;
}

/** `YOOKASSA_NOTIFICATION_IPS=`: no sender check (a proxy hides the addresses), not the published list. */
const EMPTY_IS_A_VALUE = new Set(['YOOKASSA_NOTIFICATION_IPS']);

export function loadConfig(env: Record<string, string | undefined> = process.env): LoadedConfig {
  // Empty strings mean "unset": shells and .env files often export VAR= to clear a value. Except where
  // empty is a setting of its own (EMPTY_IS_A_VALUE).
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(envSchema.shape)) {
    const value = env[key];
    if (value !== undefined && (value !== '' || EMPTY_IS_A_VALUE.has(key))) cleaned[key] = value;
  }
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '?'}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  const warnings: string[] = [];
  const dataDir = resolve(e.DATA_DIR);

  let jwtSecret = e.JWT_SECRET;
  let encryptionKey = e.ENCRYPTION_KEY;
  if (!jwtSecret || !encryptionKey) {
    if (e.NODE_ENV === 'production') {
      const missing = [!jwtSecret && 'JWT_SECRET', !encryptionKey && 'ENCRYPTION_KEY'].filter(Boolean);
      throw new ConfigError(`${missing.join(' and ')} must be set when NODE_ENV=production (JWT_SECRET: at least 32 bytes; ENCRYPTION_KEY: 64 hex characters)`);
    }
    const dev = loadDevSecrets(dataDir, warnings);
    jwtSecret ??= dev.jwtSecret;
    encryptionKey ??= dev.encryptionKey;
  }

  const publicBaseUrl = e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`;
  if (e.NODE_ENV === 'production' && !publicBaseUrl.startsWith('https://')) {
    throw new ConfigError('PUBLIC_BASE_URL: must be an https:// URL when NODE_ENV=production');
  }

  let tokenPriceNano: bigint;
  try {
    tokenPriceNano = priceToNano(e.TOKEN_PRICE);
  } catch (error) {
    throw error instanceof ConfigError ? error : new ConfigError(`TOKEN_PRICE: ${String(error)}`);
  }
  if (tokenPriceNano <= 0n) throw new ConfigError('TOKEN_PRICE: must be at least 1e-9');

  if (!!e.YOOKASSA_SHOP_ID !== !!e.YOOKASSA_SECRET_KEY) {
    throw new ConfigError('YOOKASSA_SHOP_ID and YOOKASSA_SECRET_KEY: set both to take top-ups, or neither');
  }
  const topupMinNano = currencyToNano('TOPUP_MIN_AMOUNT', e.TOPUP_MIN_AMOUNT);
  const topupMaxNano = currencyToNano('TOPUP_MAX_AMOUNT', e.TOPUP_MAX_AMOUNT);
  if (topupMinNano > topupMaxNano) throw new ConfigError('TOPUP_MIN_AMOUNT: must not exceed TOPUP_MAX_AMOUNT');

  const cacheHitPriceRatioNano = unitsToNano(e.CACHE_HIT_PRICE_RATIO);
  if (cacheHitPriceRatioNano === null) throw new ConfigError('CACHE_HIT_PRICE_RATIO: at most 9 digits after the point');
  const cacheReadPriceRatioNano = unitsToNano(e.CACHE_READ_PRICE_RATIO);
  if (cacheReadPriceRatioNano === null) throw new ConfigError('CACHE_READ_PRICE_RATIO: at most 9 digits after the point');
  const cacheWritePriceRatioNano = unitsToNano(e.CACHE_WRITE_PRICE_RATIO);
  if (cacheWritePriceRatioNano === null) throw new ConfigError('CACHE_WRITE_PRICE_RATIO: at most 9 digits after the point');
  const registrationBonusNano = unitsToNano(e.REGISTRATION_BONUS);
  if (registrationBonusNano === null) throw new ConfigError('REGISTRATION_BONUS: must be a whole number of 1e-9 units');
  if (e.REQUIRE_EMAIL_VERIFICATION && !e.SMTP_URL) {
    throw new ConfigError('REQUIRE_EMAIL_VERIFICATION: set SMTP_URL, or nobody can receive the link that credits the bonus');
  }
  const shareMillionths = Math.round(e.REFERRAL_PERCENT * 10_000);
  if (Math.abs(shareMillionths - e.REFERRAL_PERCENT * 10_000) > 1e-6) throw new ConfigError('REFERRAL_PERCENT: at most 4 digits after the point');
  const smtp = e.SMTP_URL ? { url: e.SMTP_URL, from: e.SMTP_FROM ?? `Conduit <no-reply@${new URL(publicBaseUrl).hostname}>` } : null;

  return {
    warnings,
    config: {
      nodeEnv: e.NODE_ENV,
      port: e.PORT,
      host: e.HOST,
      databaseUrl: e.DATABASE_URL,
      dataDir,
      jwtSecret,
      encryptionKey: encryptionKey.toLowerCase(),
      encryptionKeyPrevious: e.ENCRYPTION_KEY_PREVIOUS.map((k) => k.toLowerCase()),
      upstreamBaseUrl: e.UPSTREAM_BASE_URL,
      upstreamApiKey: e.UPSTREAM_API_KEY,
      upstreamProtocol: e.UPSTREAM_PROTOCOL,
      upstreamTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
      publicBaseUrl,
      tokenPriceNano,
      tokenPrice: e.TOKEN_PRICE,
      vkApiBaseUrl: e.VK_API_BASE_URL,
      telegramApiBaseUrl: e.TELEGRAM_API_BASE_URL,
      yclientsBaseUrl: e.YCLIENTS_BASE_URL,
      vkAudioBaseUrls: e.VK_AUDIO_BASE_URLS,
      audioMaxBytes: e.AUDIO_MAX_BYTES,
      audioMaxSeconds: e.AUDIO_MAX_SECONDS,
      audioTokensPerSecond: e.AUDIO_TOKENS_PER_SECOND,
      transcriptionModel: e.TRANSCRIPTION_MODEL,
      reserveCompletionTokens: e.RESERVE_COMPLETION_TOKENS,
      leaseChunkNano: BigInt(Math.round(e.LEASE_CHUNK * 1e9)),
      usageFlushMs: e.USAGE_FLUSH_MS,
      usageRetentionDays: e.USAGE_RETENTION_DAYS,
      modelsCacheSeconds: e.MODELS_CACHE_SECONDS,
      cacheTtlSeconds: e.CACHE_TTL_SECONDS,
      cacheHitPriceRatioNano,
      cacheReadPriceRatioNano,
      cacheWritePriceRatioNano,
      bookingSyncIntervalSeconds: e.BOOKING_SYNC_INTERVAL_SECONDS,
      orderTimeZone: e.ORDER_TIME_ZONE,
      defaultAgentModel: e.DEFAULT_AGENT_MODEL,
      assistantMaxSteps: e.ASSISTANT_MAX_STEPS,
      assistantMaxToolCalls: e.ASSISTANT_MAX_TOOL_CALLS,
      assistantMaxBookingsPerClient: e.ASSISTANT_MAX_BOOKINGS_PER_CLIENT,
      assistantMaxOpenOrdersPerClient: e.ASSISTANT_MAX_OPEN_ORDERS_PER_CLIENT,
      telegramTimeoutMs: e.TELEGRAM_TIMEOUT_MS,
      outboxPollIntervalMs: e.OUTBOX_POLL_INTERVAL_MS,
      assistantDebounceMs: e.ASSISTANT_DEBOUNCE_MS,
      handoffTimeoutMinutes: e.HANDOFF_TIMEOUT_MINUTES,
      assistantClientMessagesPerMinute: e.ASSISTANT_CLIENT_MESSAGES_PER_MINUTE,
      assistantTurnLeaseSeconds: e.ASSISTANT_TURN_LEASE_SECONDS,
      outboxRetryBaseMs: e.OUTBOX_RETRY_BASE_MS,
      outboxMaxAttempts: e.OUTBOX_MAX_ATTEMPTS,
      bodyLimitBytes: e.BODY_LIMIT_BYTES,
      pdfQueueMaxWaiting: e.PDF_QUEUE_MAX_WAITING,
      invoiceValidDays: e.INVOICE_VALID_DAYS,
      invoiceExpirySeconds: e.INVOICE_EXPIRY_SECONDS,
      referral: { percent: e.REFERRAL_PERCENT, shareMillionths: BigInt(shareMillionths), months: e.REFERRAL_MONTHS, sameDomain: e.REFERRAL_SAME_DOMAIN },
      upstreamMaxBodyBytes: e.UPSTREAM_MAX_BODY_BYTES,
      maxKeysPerUser: e.MAX_KEYS_PER_USER,
      maxAgentsPerUser: e.MAX_AGENTS_PER_USER,
      rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
      rateLimitTokensPerMinute: e.RATE_LIMIT_TOKENS_PER_MINUTE,
      rateLimitPerDay: e.RATE_LIMIT_PER_DAY,
      rateLimitPerUserPerMinute: e.RATE_LIMIT_PER_USER_PER_MINUTE,
      rateLimitPerUserTokensPerMinute: e.RATE_LIMIT_PER_USER_TOKENS_PER_MINUTE,
      rateLimitPerUserPerDay: e.RATE_LIMIT_PER_USER_PER_DAY,
      shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
      upstreamMaxConnections: e.UPSTREAM_MAX_CONNECTIONS,
      metricsToken: e.METRICS_TOKEN,
      corsOrigins: e.CORS_ORIGINS,
      runtimeMaxHttpRequests: e.BUN_CONFIG_MAX_HTTP_REQUESTS ?? 256,
      memoryTargetBytes: e.MEMORY_TARGET_MB * 1024 * 1024,
      runtimeForcedRamBytes: e.BUN_JSC_forceRAMSize ?? null,
      workers: resolveWorkers(e.WORKERS, e.DATABASE_URL !== undefined),
      workerNumber: e.CONDUIT_WORKER ?? null,
      adminEmails: e.ADMIN_EMAILS,
      balanceCurrency: e.BALANCE_CURRENCY,
      yookassa: e.YOOKASSA_SHOP_ID && e.YOOKASSA_SECRET_KEY ? { shopId: e.YOOKASSA_SHOP_ID, secretKey: e.YOOKASSA_SECRET_KEY } : null,
      yookassaApiBaseUrl: e.YOOKASSA_API_BASE_URL,
      yookassaReceiptVatCode: e.YOOKASSA_RECEIPT_VAT_CODE,
      topupMinNano,
      topupMaxNano,
      topupRecheckSeconds: e.TOPUP_RECHECK_SECONDS,
      topupMaxPending: e.TOPUP_MAX_PENDING,
      logLevel: e.LOG_LEVEL,
      logRequests: e.LOG_REQUESTS,
      requestReceiveTimeoutMs: e.REQUEST_RECEIVE_TIMEOUT_MS,
      maxConnectionsPerAddress: e.MAX_CONNECTIONS_PER_ADDRESS,
      upstreamHealthCacheSeconds: e.UPSTREAM_HEALTH_CACHE_SECONDS,
      routeMaxAttempts: e.ROUTE_MAX_ATTEMPTS,
      routeTimeoutFailoversPerMinute: e.ROUTE_TIMEOUT_FAILOVERS_PER_MINUTE,
      unpricedModels: e.UNPRICED_MODELS,
      providerFailureThreshold: e.PROVIDER_FAILURE_THRESHOLD,
      providerCooldownSeconds: e.PROVIDER_COOLDOWN_SECONDS,
      providerProbeSeconds: e.PROVIDER_PROBE_SECONDS,
      providerFailureRatio: e.PROVIDER_FAILURE_RATIO,
      providerFailureWindow: e.PROVIDER_FAILURE_WINDOW,
      providerBalanceSeconds: e.PROVIDER_BALANCE_SECONDS,
      upstreamBalanceThresholdNano: e.UPSTREAM_BALANCE_THRESHOLD === undefined ? null : unitsToNanoRounded(e.UPSTREAM_BALANCE_THRESHOLD),
      trustProxy: e.TRUST_PROXY,
      registrationLimitPerHour: e.REGISTRATION_LIMIT_PER_HOUR,
      promoAttemptsPerHour: e.PROMO_ATTEMPTS_PER_HOUR,
      promoAttemptsPerHourPerAddress: e.PROMO_ATTEMPTS_PER_HOUR_PER_ADDRESS,
      registrationBonusNano,
      requireEmailVerification: e.REQUIRE_EMAIL_VERIFICATION,
      smtp,
      supportContact: e.SUPPORT_CONTACT,
      alertWebhookAllowPrivate: e.ALERT_WEBHOOK_ALLOW_PRIVATE,
      alertWebhookMaxQueued: e.ALERT_WEBHOOK_MAX_QUEUED,
      loginMaxFailures: e.LOGIN_MAX_FAILURES,
      loginAccountMaxFailures: e.LOGIN_ACCOUNT_MAX_FAILURES,
      loginLockoutSeconds: e.LOGIN_LOCKOUT_SECONDS,
      loginFailureWindowSeconds: e.LOGIN_FAILURE_WINDOW_SECONDS,
      passwordResetLimitPerEmail: e.PASSWORD_RESET_LIMIT_PER_EMAIL,
      passwordResetLimitPerAddress: e.PASSWORD_RESET_LIMIT_PER_ADDRESS,
      totpMaxFailures: e.TOTP_MAX_FAILURES,
      totpLockoutSeconds: e.TOTP_LOCKOUT_SECONDS,
      yclientsRatePerSecond: e.YCLIENTS_RATE_PER_SECOND,
      yclientsRatePerMinute: e.YCLIENTS_RATE_PER_MINUTE,
      yclientsTimeZone: e.YCLIENTS_TIME_ZONE,
      yookassaNotificationIps: e.YOOKASSA_NOTIFICATION_IPS ?? [...YOOKASSA_NOTIFICATION_RANGES],
    },
  };
}
