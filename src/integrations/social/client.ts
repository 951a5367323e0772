// Typed client for the VK API methods the community integration uses (docs/integrations/vk.md).
// Every call is POST application/x-www-form-urlencoded to <baseUrl>/<method> carrying access_token and v;
// VK answers HTTP 200 with either {response} or {error: {error_code, error_msg, request_params}}.
//
// The token travels in the body, so it cannot leak through a URL; error texts are still scrubbed of
// it and no error carries a `cause`, because a transport error or a proxy page may quote the request.

import type { VkKeyboard } from './keyboards';

export const VK_API_VERSION = '5.199';

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_RETRY_DELAY_MS = 500;
import { failureMessage, httpCall, isRecord, redact, type CallFailure } from '../http-call';

/** The subset of `fetch` the client needs; lets callers inject their own transport. */
export type VkFetch = (input: string, init: RequestInit) => Promise<Response>;

export interface VkClientOptions {
  /** Config's VK_API_BASE_URL, e.g. https://api.vk.com/method (a trailing slash is tolerated). */
  baseUrl: string;
  /** A community access token. */
  accessToken: string;
  /** API version sent as `v`; it also decides response shapes. Default 5.199. */
  version?: string;
  fetch?: VkFetch;
  /** Per attempt, including reading the body. Default 10 s. */
  timeoutMs?: number;
  /** Automatic retries after error 6 (too many requests) and 9 (flood control). */
  retry?: {
    /** Retries after the first attempt. Default 2; 0 disables. */
    maxRetries?: number;
    /** Wait before the first retry, doubled for each further one. Default 500 ms. */
    delayMs?: number;
  };
}

/**
 * Coarse meaning of an `error_code` (only the code is stable; `error_msg` is free text):
 * - `auth`: 5, 1117 — token wrong, revoked or expired; mark the integration broken.
 * - `too_many_requests`: 6, 9 (flood control), 29 (daily rate limit).
 * - `permission_denied`: the token lacks a right or the recipient does not accept messages —
 *   7, 15, 27 (method unavailable with a community token), 203, 900, 901, 902, 912 (bot capabilities off), 917, 932.
 * - `invalid_request`: 8, 100, 113, 125, 911 (bad keyboard), 914 (message too long).
 * - `not_found`: 104 (e.g. unknown callback server).
 * - `limit_reached`: 2000 (10 callback servers already).
 * - `captcha`: 14, not expected with community tokens.
 * - `server_error`: 1, 10, 13.
 * - `other`: any code not listed.
 */
export type VkErrorKind =
  | 'auth'
  | 'too_many_requests'
  | 'permission_denied'
  | 'invalid_request'
  | 'not_found'
  | 'limit_reached'
  | 'captcha'
  | 'server_error'
  | 'other';

const KIND_BY_CODE = new Map<number, VkErrorKind>([
  [5, 'auth'],
  [1117, 'auth'],
  [6, 'too_many_requests'],
  [9, 'too_many_requests'],
  [29, 'too_many_requests'],
  [7, 'permission_denied'],
  [15, 'permission_denied'],
  [27, 'permission_denied'],
  [203, 'permission_denied'],
  [900, 'permission_denied'],
  [901, 'permission_denied'],
  [902, 'permission_denied'],
  [912, 'permission_denied'],
  [917, 'permission_denied'],
  [932, 'permission_denied'],
  [8, 'invalid_request'],
  [100, 'invalid_request'],
  [113, 'invalid_request'],
  [125, 'invalid_request'],
  [911, 'invalid_request'],
  [914, 'invalid_request'],
  [104, 'not_found'],
  [2000, 'limit_reached'],
  [14, 'captcha'],
  [1, 'server_error'],
  [10, 'server_error'],
  [13, 'server_error'],
]);

/** Codes the client retries by itself: waiting is all they need. */
const AUTO_RETRY_CODES = new Set([6, 9]);

export function vkErrorKind(code: number): VkErrorKind {
  return KIND_BY_CODE.get(code) ?? 'other';
}

/** VK answered with an `error` envelope. The message never carries the access token. */
export class VkApiError extends Error {
  override readonly name = 'VkApiError';
  readonly method: string;
  readonly code: number;
  readonly kind: VkErrorKind;
  /** `error_msg` as VK wrote it (scrubbed). Free text: branch on `code` or `kind`. */
  readonly errorMsg: string;
  /** VK's echo of the call, without any access_token. */
  readonly requestParams: Array<{ key: string; value: string }>;
  /** How many calls were made, retries included. */
  readonly attempts: number;

  constructor(init: {
    method: string;
    code: number;
    errorMsg: string;
    requestParams: Array<{ key: string; value: string }>;
    attempts: number;
  }) {
    super(`VK ${init.method} failed: ${init.code} ${init.errorMsg}`);
    this.method = init.method;
    this.code = init.code;
    this.kind = vkErrorKind(init.code);
    this.errorMsg = init.errorMsg;
    this.requestParams = init.requestParams;
    this.attempts = init.attempts;
  }

  /** The same call may succeed later (after the client's own retries ran out, for 6 and 9). */
  get retryable(): boolean {
    return this.code === 6 || this.code === 9 || this.kind === 'server_error';
  }
}

/** No VK answer: unreachable, timed out, or something that is not a VK envelope (a proxy's 502 page). */
export class VkNetworkError extends Error {
  override readonly name = 'VkNetworkError';
  readonly method: string;
  readonly reason: 'timeout' | 'unreachable' | 'bad_response';
  /** HTTP status for `bad_response`; null otherwise. */
  readonly httpStatus: number | null;

  constructor(init: { method: string; message: string; reason: VkNetworkError['reason']; httpStatus: number | null }) {
    super(init.message);
    this.method = init.method;
    this.reason = init.reason;
    this.httpStatus = init.httpStatus;
  }

  get timedOut(): boolean {
    return this.reason === 'timeout';
  }
}

/**
 * Community tokens issued today: `vk1.a.` followed by a long URL-safe string. Older communities may still
 * hold 85-character hex tokens; the product asks for the current prefix, so those are not accepted.
 * Only groups.getById can tell whether a well-formed token is real.
 */
export function isCommunityTokenFormat(token: string): boolean {
  return /^vk1\.a\.[A-Za-z0-9_-]{20,}$/.test(token);
}

/**
 * A fresh random_id for messages.send: a positive integer of up to 53 bits (1 … 2^53−1), the widest range a
 * JSON number carries exactly. VK checks it against the sender's whole message history and silently drops a
 * repeat (its docs: "use a large range, up to int64"), so 31 bits would collide within tens of thousands of
 * messages. A retried send must reuse the id of its first attempt rather than call this again.
 */
export function generateRandomId(): number {
  for (;;) {
    const [high, low] = crypto.getRandomValues(new Uint32Array(2));
    // 21 high bits and 32 low bits: 53 bits in all.
    const value = (high! & 0x1fffff) * 2 ** 32 + low!;
    if (value !== 0) return value;
  }
}

// ---------------------------------------------------------------------------------------------
// Objects (the fields this service reads; VK adds fields over time, unknown keys are ignored)

export interface VkGroup {
  id: number;
  name: string;
  screen_name?: string;
  is_closed?: 0 | 1 | 2;
  type?: 'group' | 'page' | 'event';
  photo_50?: string;
  photo_100?: string;
  photo_200?: string;
}

export type VkCallbackServerStatus = 'unconfigured' | 'failed' | 'wait' | 'ok';

export interface VkCallbackServer {
  id: number;
  title: string;
  creator_id: number;
  url: string;
  secret_key: string;
  status: VkCallbackServerStatus;
}

/** Events this service subscribes to; VK knows many more (message_reply, group_join…). */
export type VkCallbackEvent = 'message_new' | 'message_event' | 'message_allow' | 'message_deny';

export type VkFlag = boolean | 0 | 1;

export interface VkCallbackSettings {
  api_version: string;
  events: Record<string, 0 | 1>;
}

/** What the button press shows: a toast, a link or a mini app. */
export type VkEventData =
  | { type: 'show_snackbar'; text: string }
  | { type: 'open_link'; link: string }
  | { type: 'open_app'; app_id: number; owner_id?: number; hash?: string };

export interface SetCallbackSettingsParams extends Partial<Record<VkCallbackEvent, VkFlag>> {
  groupId: number;
  serverId: number;
  /** Version of the event bodies VK will post. Default: the client's version. */
  apiVersion?: string;
  /** Any other event flag by its VK name, e.g. `{ message_reply: 0 }`. */
  otherEvents?: Record<string, VkFlag>;
}

export interface CallbackServerParams {
  groupId: number;
  url: string;
  /** ≤ 14 characters. */
  title: string;
  /** ≤ 50 characters; VK echoes it in every event's `secret`. */
  secretKey: string;
}

export interface MessagesSendParams {
  /** User id, 2000000000 + chat id, or -group id. */
  peerId: number;
  message: string;
  /** Dedupe key: VK will not deliver a second message with the same value from this community. 0 disables dedupe. Up to 2^53−1. */
  randomId: number;
  keyboard?: VkKeyboard;
  /** ≤ 1000 characters; comes back on the message. */
  payload?: Record<string, unknown>;
  dontParseLinks?: boolean;
  disableMentions?: boolean;
}

export interface SendMessageEventAnswerParams {
  /** `object.event_id` of the message_event (not the envelope's). Valid for about a minute. */
  eventId: string;
  userId: number;
  peerId: number;
  eventData?: VkEventData;
}

export type VkParams = Record<string, string | number | boolean | object | null | undefined>;

export interface VkClient {
  /**
   * The community, or null when VK lists nothing for that id. Without an id, the community the token
   * belongs to: comparing its id with the configured one checks token and group together.
   */
  groupsGetById(groupId?: number | string): Promise<VkGroup | null>;
  groupsGetCallbackConfirmationCode(groupId: number): Promise<string>;
  groupsGetCallbackServers(groupId: number, serverIds?: number[]): Promise<VkCallbackServer[]>;
  /** Returns the new server id. */
  groupsAddCallbackServer(params: CallbackServerParams): Promise<number>;
  groupsEditCallbackServer(params: CallbackServerParams & { serverId: number }): Promise<void>;
  groupsDeleteCallbackServer(params: { groupId: number; serverId: number }): Promise<void>;
  groupsSetCallbackSettings(params: SetCallbackSettingsParams): Promise<void>;
  groupsGetCallbackSettings(params: { groupId: number; serverId: number }): Promise<VkCallbackSettings>;
  /** Returns the message id. */
  messagesSend(params: MessagesSendParams): Promise<number>;
  messagesSendMessageEventAnswer(params: SendMessageEventAnswerParams): Promise<void>;
  /** «печатает…» in the client's chat for about 10 s, or until the community's next message. */
  messagesSetActivity(params: { peerId: number; type: 'typing'; groupId?: number }): Promise<void>;
  /** Any other method, with the same envelope handling, retries and error guarantees. */
  call<T>(method: string, params?: VkParams): Promise<T>;
}

export function createVkClient(options: VkClientOptions): VkClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch: VkFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const version = options.version ?? VK_API_VERSION;
  const maxRetries = Math.max(0, options.retry?.maxRetries ?? DEFAULT_MAX_RETRIES);
  const retryDelayMs = Math.max(0, options.retry?.delayMs ?? DEFAULT_RETRY_DELAY_MS);
  const token = options.accessToken;
  const secrets = tokenSpellings(token);
  const scrub = (text: string) => redact(text, secrets);

  async function attempt(method: string, body: string): Promise<{ ok: true; value: unknown } | { ok: false; error: Record<string, unknown> }> {
    const outcome = await httpCall(
      doFetch,
      `${baseUrl}/${method}`,
      { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' }, body },
      { timeoutMs },
    );
    if (!outcome.ok) throw networkError(method, outcome, timeoutMs, secrets);
    const { response, body: parsed } = outcome;
    if (isRecord(parsed) && 'response' in parsed) return { ok: true, value: parsed.response };
    if (isRecord(parsed) && isRecord(parsed.error) && typeof parsed.error.error_code === 'number') {
      return { ok: false, error: parsed.error };
    }
    throw new VkNetworkError({
      method,
      reason: 'bad_response',
      httpStatus: response.status,
      message: `VK ${method} gave no API answer (HTTP ${response.status})`,
    });
  }

  async function call<T>(method: string, params: VkParams = {}): Promise<T> {
    const body = encodeForm({ ...params, access_token: token, v: version });
    for (let attemptNo = 1; ; attemptNo++) {
      const result = await attempt(method, body);
      if (result.ok) return result.value as T;
      const code = result.error.error_code as number;
      if (AUTO_RETRY_CODES.has(code) && attemptNo <= maxRetries) {
        await Bun.sleep(retryDelayMs * 2 ** (attemptNo - 1));
        continue;
      }
      throw new VkApiError({
        method,
        code,
        errorMsg: scrub(typeof result.error.error_msg === 'string' ? result.error.error_msg : ''),
        requestParams: requestParams(result.error.request_params, scrub),
        attempts: attemptNo,
      });
    }
  }

  return {
    async groupsGetById(groupId) {
      const response = await call<unknown>('groups.getById', groupId === undefined ? {} : { group_id: groupId });
      // 5.199 wraps the list as {groups, profiles}; versions before it answered with the bare array.
      const groups = Array.isArray(response) ? response : isRecord(response) && Array.isArray(response.groups) ? response.groups : [];
      const first = groups.find(isRecord);
      if (!first) return null;
      return { ...first, id: Number(first.id), name: String(first.name ?? '') } as VkGroup;
    },
    async groupsGetCallbackConfirmationCode(groupId) {
      const response = await call<unknown>('groups.getCallbackConfirmationCode', { group_id: groupId });
      if (isRecord(response) && typeof response.code === 'string') return response.code;
      throw unexpectedShape('groups.getCallbackConfirmationCode');
    },
    async groupsGetCallbackServers(groupId, serverIds) {
      const response = await call<unknown>('groups.getCallbackServers', {
        group_id: groupId,
        server_ids: serverIds && serverIds.length > 0 ? serverIds : undefined,
      });
      const items = isRecord(response) && Array.isArray(response.items) ? response.items : Array.isArray(response) ? response : null;
      if (!items) throw unexpectedShape('groups.getCallbackServers');
      return items.filter(isRecord) as unknown as VkCallbackServer[];
    },
    async groupsAddCallbackServer(params) {
      const response = await call<unknown>('groups.addCallbackServer', {
        group_id: params.groupId,
        url: params.url,
        title: params.title,
        secret_key: params.secretKey,
      });
      const id = isRecord(response) ? Number(response.server_id) : NaN;
      if (!Number.isInteger(id)) throw unexpectedShape('groups.addCallbackServer');
      return id;
    },
    async groupsEditCallbackServer(params) {
      await call('groups.editCallbackServer', {
        group_id: params.groupId,
        server_id: params.serverId,
        url: params.url,
        title: params.title,
        secret_key: params.secretKey,
      });
    },
    async groupsDeleteCallbackServer(params) {
      await call('groups.deleteCallbackServer', { group_id: params.groupId, server_id: params.serverId });
    },
    async groupsSetCallbackSettings(params) {
      const { groupId, serverId, apiVersion, otherEvents, ...events } = params;
      const flags: VkParams = {};
      for (const [name, value] of Object.entries({ ...otherEvents, ...events })) {
        if (value !== undefined) flags[name] = value === true || value === 1 ? 1 : 0;
      }
      await call('groups.setCallbackSettings', {
        group_id: groupId,
        server_id: serverId,
        api_version: apiVersion ?? version,
        ...flags,
      });
    },
    async groupsGetCallbackSettings(params) {
      const response = await call<unknown>('groups.getCallbackSettings', {
        group_id: params.groupId,
        server_id: params.serverId,
      });
      if (!isRecord(response)) throw unexpectedShape('groups.getCallbackSettings');
      const events = isRecord(response.events) ? response.events : {};
      return {
        api_version: String(response.api_version ?? ''),
        events: Object.fromEntries(Object.entries(events).map(([k, v]) => [k, Number(v) === 1 ? 1 : 0])),
      };
    },
    async messagesSend(params) {
      if (!Number.isSafeInteger(params.randomId)) throw new TypeError('randomId must be a safe integer');
      const response = await call<unknown>('messages.send', {
        peer_id: params.peerId,
        random_id: params.randomId,
        message: params.message,
        keyboard: params.keyboard,
        payload: params.payload,
        dont_parse_links: params.dontParseLinks,
        disable_mentions: params.disableMentions,
      });
      if (typeof response === 'number') return response;
      // The peer_ids form answers with one {peer_id, message_id} per peer; accept it too.
      if (Array.isArray(response) && isRecord(response[0]) && typeof response[0].message_id === 'number') {
        return response[0].message_id;
      }
      throw unexpectedShape('messages.send');
    },
    async messagesSendMessageEventAnswer(params) {
      await call('messages.sendMessageEventAnswer', {
        event_id: params.eventId,
        user_id: params.userId,
        peer_id: params.peerId,
        event_data: params.eventData,
      });
    },
    async messagesSetActivity(params) {
      await call('messages.setActivity', { peer_id: params.peerId, type: params.type, group_id: params.groupId });
    },
    call,
  };
}

// ---------------------------------------------------------------------------------------------

/** Form encoding as VK reads it: arrays of scalars comma-joined, objects as JSON, booleans as 1/0. */
function encodeForm(params: VkParams): string {
  const form = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (typeof value === 'boolean') form.append(key, value ? '1' : '0');
    else if (Array.isArray(value) && value.every((v) => typeof v === 'number' || typeof v === 'string')) {
      form.append(key, value.join(','));
    } else if (typeof value === 'object') form.append(key, JSON.stringify(value));
    else form.append(key, String(value));
  }
  return form.toString();
}

function requestParams(raw: unknown, scrub: (s: string) => string): Array<{ key: string; value: string }> {
  if (!Array.isArray(raw)) return [];
  return raw
    .filter(isRecord)
    .filter((p) => p.key !== 'access_token')
    .map((p) => ({ key: String(p.key ?? ''), value: scrub(String(p.value ?? '')) }));
}

function unexpectedShape(method: string): VkNetworkError {
  return new VkNetworkError({ method, reason: 'bad_response', httpStatus: 200, message: `VK ${method} answered with an unexpected shape` });
}

function networkError(method: string, failure: CallFailure, timeoutMs: number, secrets: string[]): VkNetworkError {
  return new VkNetworkError({
    method,
    reason: failure.timedOut ? 'timeout' : 'unreachable',
    httpStatus: null,
    message: failureMessage(`VK ${method}`, failure, timeoutMs, secrets),
  });
}

/** Every spelling of the token a request or an error text might use; none when it is too short to scrub. */
function tokenSpellings(token: string): string[] {
  if (token.length < 8) return [];
  const forms = [...new Set([token, encodeURIComponent(token), new URLSearchParams({ t: token }).toString().slice(2)])];
  // The part after the public prefix is the secret on its own.
  const secret = token.startsWith('vk1.a.') ? token.slice('vk1.a.'.length) : '';
  if (secret.length >= 8) forms.push(secret);
  return forms;
}
