// Typed client for the Telegram Bot API: the few methods the messenger integration uses.
// Wire format: docs/integrations/telegram.md. Every call is POST + JSON to <baseUrl>/bot<token>/<method>
// and every answer is the {ok, result | error_code, description, parameters} envelope.
//
// The bot token is part of every URL, and transport errors like to quote the URL; so no error built
// here carries a `cause`, and every text that leaves is scrubbed of the token.

const DEFAULT_TIMEOUT_MS = 10_000;
import { failureMessage, httpCall, isRecord, redact, type CallFailure } from '../http-call';

/** The subset of `fetch` the client needs; lets callers inject their own transport. */
export type TelegramFetch = (input: string, init: RequestInit) => Promise<Response>;

export interface TelegramClientOptions {
  /** Config's TELEGRAM_API_BASE_URL, e.g. https://api.telegram.org (a trailing slash is tolerated). */
  baseUrl: string;
  token: string;
  fetch?: TelegramFetch;
  /** Per call, including reading the body. Default 10 s. */
  timeoutMs?: number;
}

/**
 * `<bot id>:<secret>`, as BotFather issues it. The secret is 35 characters of [A-Za-z0-9_-] in
 * practice (the reference's own example has 34); the bounds are loose on purpose because only getMe
 * can tell whether a token is real. The Bot API server itself refuses ids starting with 0.
 */
export function isValidBotTokenFormat(token: string): boolean {
  return /^[1-9][0-9]{0,16}:[A-Za-z0-9_-]{30,64}$/.test(token);
}

/** Telegram answered with `ok: false` (or with something that is not a Bot API answer at all). */
export class TelegramApiError extends Error {
  override readonly name = 'TelegramApiError';
  readonly method: string;
  /** `error_code` of the envelope (equal to the HTTP status); the HTTP status when there is no envelope. */
  readonly errorCode: number;
  /** E.g. "Bad Request: chat not found". Stable in practice, not promised: branch on `errorCode`. */
  readonly description: string;
  /** Seconds to wait before retrying (429 flood control), from `parameters.retry_after` or Retry-After. */
  readonly retryAfter: number | null;
  /** The group became a supergroup with this id: resend there. */
  readonly migrateToChatId: number | null;

  constructor(init: {
    method: string;
    errorCode: number;
    description: string;
    retryAfter: number | null;
    migrateToChatId: number | null;
  }) {
    super(`Telegram ${init.method} failed: ${init.errorCode} ${init.description}`);
    this.method = init.method;
    this.errorCode = init.errorCode;
    this.description = init.description;
    this.retryAfter = init.retryAfter;
    this.migrateToChatId = init.migrateToChatId;
  }

  /** 429 and 5xx: the same call may succeed later. Everything else needs a different request. */
  get retryable(): boolean {
    return this.errorCode === 429 || this.errorCode >= 500;
  }
}

/** Telegram could not be reached, or did not answer within the timeout. */
export class TelegramNetworkError extends Error {
  override readonly name = 'TelegramNetworkError';
  readonly method: string;
  readonly timedOut: boolean;

  constructor(init: { method: string; message: string; timedOut: boolean }) {
    super(init.message);
    this.method = init.method;
    this.timedOut = init.timedOut;
  }
}

// ---------------------------------------------------------------------------------------------
// Bot API objects (the fields this service reads; Telegram adds fields over time, so unknown keys are
// expected and ignored). Ids fit in a JS number: the Bot API promises at most 52 significant bits.

export interface User {
  id: number;
  is_bot: boolean;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
}

/** getMe's answer: a User with the bot's capabilities. */
export interface BotUser extends User {
  is_bot: true;
  can_join_groups?: boolean;
  can_read_all_group_messages?: boolean;
  supports_inline_queries?: boolean;
  can_connect_to_business?: boolean;
  has_main_web_app?: boolean;
}

export type ChatType = 'private' | 'group' | 'supergroup' | 'channel';

export interface Chat {
  id: number;
  type: ChatType;
  title?: string;
  username?: string;
  first_name?: string;
  last_name?: string;
}

export interface MessageEntity {
  type: string;
  offset: number;
  length: number;
  url?: string;
  user?: User;
  language?: string;
  custom_emoji_id?: string;
}

export interface InlineKeyboardButton {
  text: string;
  /** 1–64 bytes (not characters). */
  callback_data?: string;
  url?: string;
}

export interface InlineKeyboardMarkup {
  inline_keyboard: InlineKeyboardButton[][];
}

export interface KeyboardButton {
  text: string;
  request_contact?: boolean;
}

export interface ReplyKeyboardMarkup {
  keyboard: KeyboardButton[][];
  is_persistent?: boolean;
  resize_keyboard?: boolean;
  one_time_keyboard?: boolean;
  input_field_placeholder?: string;
}

export interface ReplyKeyboardRemove {
  remove_keyboard: true;
}

export interface ForceReply {
  force_reply: true;
  input_field_placeholder?: string;
}

export type ReplyMarkup = InlineKeyboardMarkup | ReplyKeyboardMarkup | ReplyKeyboardRemove | ForceReply;

export interface Message {
  message_id: number;
  /** Unix seconds; 0 in the "inaccessible message" stub of an old callback query. */
  date: number;
  chat: Chat;
  /** Absent in channels. */
  from?: User;
  /** The channel itself for channel posts (and anonymous group admins). */
  sender_chat?: Chat;
  author_signature?: string;
  message_thread_id?: number;
  text?: string;
  entities?: MessageEntity[];
  caption?: string;
  /** One level only: the inner message never has its own reply_to_message. */
  reply_to_message?: Message;
  reply_markup?: InlineKeyboardMarkup;
  contact?: { phone_number: string; first_name: string; last_name?: string; user_id?: number };
}

export interface CallbackQuery {
  id: string;
  from: User;
  chat_instance: string;
  /** The bot's message with the keyboard; may be the inaccessible stub (`date: 0`). */
  message?: Message;
  inline_message_id?: string;
  data?: string;
}

interface ChatMemberBase {
  user: User;
}

export interface ChatMemberOwner extends ChatMemberBase {
  status: 'creator';
  is_anonymous: boolean;
  custom_title?: string;
}

export interface ChatMemberAdministrator extends ChatMemberBase {
  status: 'administrator';
  can_be_edited: boolean;
  is_anonymous: boolean;
  can_manage_chat: boolean;
  can_delete_messages: boolean;
  can_manage_video_chats: boolean;
  can_restrict_members: boolean;
  can_promote_members: boolean;
  can_change_info: boolean;
  can_invite_users: boolean;
  can_post_stories?: boolean;
  can_edit_stories?: boolean;
  can_delete_stories?: boolean;
  /** Channels only. */
  can_post_messages?: boolean;
  /** Channels only. */
  can_edit_messages?: boolean;
  can_pin_messages?: boolean;
  can_manage_topics?: boolean;
  custom_title?: string;
}

export interface ChatMemberMember extends ChatMemberBase {
  status: 'member';
  until_date?: number;
}

export interface ChatMemberRestricted extends ChatMemberBase {
  status: 'restricted';
  is_member: boolean;
  can_send_messages: boolean;
  until_date: number;
}

export interface ChatMemberLeft extends ChatMemberBase {
  status: 'left';
}

export interface ChatMemberBanned extends ChatMemberBase {
  status: 'kicked';
  /** 0 = forever. */
  until_date: number;
}

export type ChatMember = ChatMemberOwner | ChatMemberAdministrator | ChatMemberMember | ChatMemberRestricted | ChatMemberLeft | ChatMemberBanned;

export type ChatMemberStatus = ChatMember['status'];

export interface ChatMemberUpdated {
  chat: Chat;
  from: User;
  date: number;
  old_chat_member: ChatMember;
  new_chat_member: ChatMember;
}

/** One webhook delivery: `update_id` plus exactly one of the other fields. */
export interface Update {
  update_id: number;
  message?: Message;
  edited_message?: Message;
  channel_post?: Message;
  edited_channel_post?: Message;
  callback_query?: CallbackQuery;
  my_chat_member?: ChatMemberUpdated;
  chat_member?: ChatMemberUpdated;
}

/** True when a bot with this membership may post in a channel: the owner, or an admin with the right. */
export function canPostMessages(member: ChatMember): boolean {
  return member.status === 'creator' || (member.status === 'administrator' && member.can_post_messages === true);
}

// ---------------------------------------------------------------------------------------------
// Method parameters

export type ParseMode = 'HTML' | 'MarkdownV2' | 'Markdown';

export type UpdateType =
  | 'message'
  | 'edited_message'
  | 'channel_post'
  | 'edited_channel_post'
  | 'callback_query'
  | 'my_chat_member'
  | 'chat_member'
  | 'inline_query'
  | 'message_reaction'
  | 'message_reaction_count';

export interface SetWebhookParams {
  /** HTTPS, port 443/80/88/8443. */
  url: string;
  /** 1–256 characters of A-Z a-z 0-9 _ -; comes back in X-Telegram-Bot-Api-Secret-Token. */
  secret_token: string;
  /** Omitted: keep the previous list. `[]`: everything except chat_member and reactions. */
  allowed_updates?: UpdateType[];
  drop_pending_updates?: boolean;
  max_connections?: number;
}

export interface ReplyParameters {
  message_id: number;
  chat_id?: number | string;
  /** Send anyway when the message to reply to is gone (otherwise 400 "message to be replied not found"). */
  allow_sending_without_reply?: boolean;
}

export interface SendMessageParams {
  /** Numeric id or "@channelusername". */
  chat_id: number | string;
  /** 1–4096 characters after entity parsing. */
  text: string;
  parse_mode?: ParseMode;
  entities?: MessageEntity[];
  reply_parameters?: ReplyParameters;
  /** Deprecated by the Bot API; sent as `reply_parameters` instead. */
  reply_to_message_id?: number;
  reply_markup?: ReplyMarkup;
  link_preview_options?: { is_disabled?: boolean };
  disable_notification?: boolean;
  protect_content?: boolean;
  message_thread_id?: number;
}

export interface TelegramClient {
  /** Checks the token; returns the bot. */
  getMe(): Promise<BotUser>;
  getChatMember(chatId: number | string, userId: number): Promise<ChatMember>;
  setWebhook(params: SetWebhookParams): Promise<true>;
  deleteWebhook(params?: { drop_pending_updates?: boolean }): Promise<true>;
  sendMessage(params: SendMessageParams): Promise<Message>;
  /** Replaces the text of a message the bot sent. */
  editMessageText(params: { chat_id: number | string; message_id: number; text: string; link_preview_options?: { is_disabled?: boolean } }): Promise<Message>;
  /** Any other method, with the same envelope handling and error guarantees. */
  call<T>(method: string, params?: Record<string, unknown>): Promise<T>;
}

export function createTelegramClient(options: TelegramClientOptions): TelegramClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const doFetch: TelegramFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const token = options.token;
  const secrets = tokenSpellings(token);
  const scrub = (text: string) => redact(text, secrets);

  async function call<T>(method: string, params?: Record<string, unknown>): Promise<T> {
    const init: RequestInit = {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify(params ?? {}),
    };

    const outcome = await httpCall(doFetch, `${baseUrl}/bot${token}/${method}`, init, { timeoutMs });
    if (!outcome.ok) throw networkError(method, outcome, timeoutMs, secrets);
    const body = outcome.body;
    if (isRecord(body) && body.ok === true && 'result' in body) return body.result as T;
    throw apiError(method, outcome.response, body, scrub);
  }

  return {
    getMe: () => call<BotUser>('getMe'),
    getChatMember: (chatId, userId) => call<ChatMember>('getChatMember', { chat_id: chatId, user_id: userId }),
    setWebhook: (params) => call<true>('setWebhook', { ...params }),
    deleteWebhook: (params) => call<true>('deleteWebhook', { ...params }),
    sendMessage(params) {
      const { reply_to_message_id, ...rest } = params;
      const body: Record<string, unknown> = { ...rest };
      if (reply_to_message_id !== undefined && rest.reply_parameters === undefined) {
        body.reply_parameters = { message_id: reply_to_message_id };
      }
      return call<Message>('sendMessage', body);
    },
    editMessageText: (params) => call<Message>('editMessageText', { ...params }),
    call,
  };
}

function apiError(method: string, response: Response, body: unknown, scrub: (s: string) => string): TelegramApiError {
  const status = response.status;
  if (isRecord(body) && body.ok === false) {
    const parameters = isRecord(body.parameters) ? body.parameters : {};
    const errorCode = typeof body.error_code === 'number' ? body.error_code : status;
    return new TelegramApiError({
      method,
      errorCode,
      description: scrub(typeof body.description === 'string' ? body.description : `HTTP ${status}`),
      retryAfter: positiveNumber(parameters.retry_after) ?? (errorCode === 429 ? positiveNumber(response.headers.get('retry-after')) : null),
      migrateToChatId: typeof parameters.migrate_to_chat_id === 'number' ? parameters.migrate_to_chat_id : null,
    });
  }
  // A proxy's HTML 502, an empty body, or a 2xx that is not an envelope: report what we have.
  const ok = status >= 200 && status < 300;
  return new TelegramApiError({
    method,
    errorCode: status,
    description: ok ? 'Unexpected answer: not a Bot API envelope' : `HTTP ${status} without a Bot API answer`,
    retryAfter: positiveNumber(response.headers.get('retry-after')),
    migrateToChatId: null,
  });
}

function networkError(method: string, failure: CallFailure, timeoutMs: number, secrets: string[]): TelegramNetworkError {
  return new TelegramNetworkError({
    method,
    timedOut: failure.timedOut,
    message: failureMessage(`Telegram ${method}`, failure, timeoutMs, secrets),
  });
}

/** Every spelling of the token a URL or an error text might use; none when it is too short to scrub. */
function tokenSpellings(token: string): string[] {
  if (token.length < 3) return [];
  const forms = [...new Set([token, encodeURIComponent(token), encodeURI(token)])];
  // The secret half alone is just as sensitive as the whole token.
  const secret = token.slice(token.indexOf(':') + 1);
  if (secret.length >= 8 && secret !== token) forms.push(secret);
  return forms;
}

function positiveNumber(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n > 0 ? n : null;
}
