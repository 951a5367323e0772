// A fake Telegram Bot API for tests: a real HTTP server speaking the wire format of
// docs/integrations/telegram.md (envelopes, HTTP status = error_code, error texts as the Bot API server
// and library users report them), backed by in-memory bots, chats, members, messages and webhooks.
// Parameters are read the way the real server reads them: query string, JSON, form-urlencoded or
// multipart, with JSON-typed fields (reply_markup, allowed_updates…) also accepted as JSON strings.
import { answerResponse, FailureQueue, queryParams, readFormFields, startFakeServer, type FakeAnswer } from './fake-server';

export interface FakeBotSpec {
  id: number;
  username: string;
  first_name: string;
}

export type FakeChatType = 'private' | 'group' | 'supergroup' | 'channel';

export interface FakeChatSpec {
  id: number;
  type: FakeChatType;
  title?: string;
  /** Without "@"; makes the chat reachable as "@username". */
  username?: string;
  first_name?: string;
  last_name?: string;
  /** Private chats: the user blocked the bot (403 "bot was blocked by the user"). */
  blocked?: boolean;
  /** Private chats: false when the user never pressed Start (403 "can't initiate conversation"). Default true. */
  started?: boolean;
  /**
   * Groups: upgraded to this supergroup. Sending to the old id is then refused with 400 "Bad Request: group
   * chat was upgraded to a supergroup chat" and `parameters.migrate_to_chat_id` (the answer quoted in
   * TwiN/gatus#179 and atipugin/telegram-bot-ruby#239; the Bot API's ResponseParameters documents the field).
   */
  migratedTo?: number;
}

/**
 * A membership as tests describe it; the fake fills in the user and every flag the real answer has
 * (false unless given). 'not_found' and 'inaccessible' make getChatMember fail the way Telegram does
 * for an unknown user and for a member list the bot may not read.
 */
export type FakeMemberSpec =
  | ({ status: 'creator' | 'administrator' | 'member' | 'restricted' | 'left' | 'kicked' } & Record<string, unknown>)
  | 'not_found'
  | 'inaccessible';

export interface FakeFailure {
  error_code: number;
  description: string;
  /** Sent as parameters.retry_after and as a Retry-After header, like the real 429. */
  retry_after?: number;
  migrate_to_chat_id?: number;
}

export interface RecordedCall {
  /** As it appeared in the path, even when unknown. */
  token: string;
  /** Canonical spelling ("sendMessage") for known methods, whatever case the caller used. */
  method: string;
  /** Every parameter, from query string and body, with JSON-typed fields decoded. */
  body: Record<string, unknown>;
  httpMethod: string;
  contentType: string | null;
}

export interface SentMessage {
  token: string;
  /** The resolved numeric chat id, also when the call used "@username". */
  chatId: number;
  text: string;
  parse_mode: string | null;
  reply_markup: unknown;
  message: Record<string, unknown>;
}

export interface FakeWebhook {
  url: string;
  secret_token: string | null;
  allowed_updates: string[];
  max_connections: number;
  pending_update_count: number;
}

export interface FakeTelegramSettings {
  /**
   * Real Telegram only accepts HTTPS webhooks on ports 443/80/88/8443. Tests of an app listening on
   * http://127.0.0.1 turn this off, which is what a self-hosted Bot API server in --local mode does.
   */
  webhookRequiresHttps: boolean;
  /** A second answerCallbackQuery for the same id: real behaviour is unconfirmed. */
  repeatCallbackAnswer: 'ok' | 'error';
}

export interface FakeTelegram {
  /** Base URL for the client and TELEGRAM_API_BASE_URL, e.g. http://127.0.0.1:54321. */
  url: string;
  calls: RecordedCall[];
  /** Date.now() at which each entry of `calls` arrived (same index). */
  callTimes: number[];
  /** Every message the fake accepted, oldest first. */
  sent: SentMessage[];
  /** Every editMessageText it accepted, oldest first: the message as it reads after the edit. */
  edited: { token: string; chatId: number; messageId: number; text: string }[];
  settings: FakeTelegramSettings;
  /**
   * While true, every request gets the HTML 502 of a proxy in front of an unreachable Telegram (not
   * recorded in `calls`: Telegram never saw it). For a refused connection, close() the fake.
   */
  down: boolean;
  addBot(token: string, bot: FakeBotSpec): void;
  addChat(chat: FakeChatSpec): void;
  /**
   * The group becomes the supergroup `supergroupId` (created with the group's title and members when
   * unknown), as Telegram does when a group grows or gets public history: the old id only answers the
   * migration error from then on.
   */
  migrateChat(groupId: number, supergroupId: number): void;
  /** Also creates the chat when unknown: -100… ids as channels, other negatives as groups, positives as private. */
  setChatMember(chatId: number | string, userId: number, member: FakeMemberSpec): void;
  /** The webhook of a bot as the last setWebhook/deleteWebhook left it; null when none is set. */
  webhook(token: string): FakeWebhook | null;
  /** Makes a message (e.g. one a user sent in an update) known, so replies to it are accepted. */
  rememberMessage(message: { message_id: number; chat: { id: number; [key: string]: unknown }; [key: string]: unknown }): void;
  /**
   * Delivers an Update to the bot's webhook the way Telegram does: POST, JSON, with the
   * X-Telegram-Bot-Api-Secret-Token header of the registered secret_token. `update_id` is assigned
   * (increasing) when absent; `secret` overrides the header (null: send none). Messages in the update
   * become known to the fake, so the app can reply to them.
   */
  deliverUpdate(token: string, update: Record<string, unknown>, options?: { secret?: string | null }): Promise<{ status: number; text: string; updateId: number }>;
  /** Makes a callback query id answerable once. */
  addCallbackQuery(id: string): void;
  /** The next `times` calls of `method` (any case; '*' for every method) answer this error. */
  failNext(method: string, failure: FakeFailure, times?: number): void;
  /** The next `times` calls of `method` never answer (until reset/close): a hang past the client timeout. */
  hangNext(method: string, times?: number): void;
  /** Calls held open by hangNext right now: neither answered nor given up by the client. */
  hangingCalls(): number;
  /** Forgets bots, chats, members, messages, webhooks, failures, calls and settings. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_SETTINGS: FakeTelegramSettings = { webhookRequiresHttps: true, repeatCallbackAnswer: 'error' };

const CANONICAL_METHODS = [
  'getMe',
  'getChat',
  'getChatMember',
  'sendMessage',
  'editMessageText',
  'setWebhook',
  'deleteWebhook',
  'getWebhookInfo',
  'answerCallbackQuery',
] as const;
const METHOD_BY_KEY = new Map<string, string>(CANONICAL_METHODS.map((m) => [m.toLowerCase(), m]));

/** Parameters that are objects or arrays; over form/query they arrive as JSON text. */
const JSON_PARAMS = new Set(['reply_markup', 'reply_parameters', 'allowed_updates', 'entities', 'link_preview_options']);

const MAX_TEXT = 4096;
const MAX_CALLBACK_DATA_BYTES = 64;
const WEBHOOK_PORTS = new Set([443, 80, 88, 8443]);

const BAD_GATEWAY_HTML =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

type Answer = FakeAnswer;

class Fail {
  constructor(
    readonly code: number,
    readonly description: string,
    readonly parameters?: Record<string, unknown>,
  ) {}
}

interface Chat extends FakeChatSpec {
  members: Map<number, FakeMemberSpec>;
}

interface PendingFailure {
  method: string;
  failure: FakeFailure | 'hang';
}

export async function startFakeTelegram(): Promise<FakeTelegram> {
  const bots = new Map<string, FakeBotSpec>();
  const chats = new Map<number, Chat>();
  const messages = new Map<string, Record<string, unknown>>();
  const webhooks = new Map<string, FakeWebhook>();
  const callbackQueries = new Map<string, { answered: boolean }>();
  const failures = new FailureQueue<PendingFailure>();
  const calls: RecordedCall[] = [];
  const callTimes: number[] = [];
  const sent: SentMessage[] = [];
  const edited: FakeTelegram['edited'] = [];
  let nextMessageId = 400;
  let nextUpdateId = 880_000;

  const fake: FakeTelegram = {
    url: '',
    calls,
    callTimes,
    sent,
    edited,
    settings: { ...DEFAULT_SETTINGS },
    down: false,
    addBot(token, bot) {
      bots.set(token, { ...bot });
    },
    addChat(chat) {
      const existing = chats.get(chat.id);
      chats.set(chat.id, { ...chat, members: existing?.members ?? new Map() });
    },
    migrateChat(groupId, supergroupId) {
      const group = chats.get(groupId);
      if (group?.type !== 'group') throw new Error(`fake Telegram: ${groupId} is no group to migrate`);
      if (!chats.has(supergroupId)) {
        chats.set(supergroupId, { id: supergroupId, type: 'supergroup', title: group.title, members: new Map(group.members) });
      }
      group.migratedTo = supergroupId;
    },
    setChatMember(chatId, userId, member) {
      const chat = findChat(chatId) ?? createChat(chatId);
      chat.members.set(userId, member);
    },
    webhook(token) {
      const hook = webhooks.get(token);
      return hook && hook.url !== '' ? { ...hook, allowed_updates: [...hook.allowed_updates] } : null;
    },
    rememberMessage(message) {
      messages.set(messageKey(message.chat.id, message.message_id), { ...message });
    },
    async deliverUpdate(token, update, options = {}) {
      const hook = webhooks.get(token);
      if (!hook || hook.url === '') throw new Error('fake Telegram: no webhook is set for this bot');
      const updateId = typeof update.update_id === 'number' ? update.update_id : ++nextUpdateId;
      if (updateId > nextUpdateId) nextUpdateId = updateId;
      const body: Record<string, unknown> = { ...update, update_id: updateId };
      for (const key of ['message', 'channel_post', 'edited_message', 'edited_channel_post'] as const) {
        const message = body[key];
        if (isObj(message) && isObj(message.chat) && typeof message.chat.id === 'number' && typeof message.message_id === 'number') {
          fake.rememberMessage(message as { message_id: number; chat: { id: number } });
        }
      }
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const secret = options.secret === undefined ? hook.secret_token : options.secret;
      if (secret !== null) headers['x-telegram-bot-api-secret-token'] = secret;
      const res = await fetch(hook.url, { method: 'POST', headers, body: JSON.stringify(body) });
      const text = await res.text();
      if (!res.ok) hook.pending_update_count += 1;
      return { status: res.status, text, updateId };
    },
    addCallbackQuery(id) {
      callbackQueries.set(id, { answered: false });
    },
    failNext(method, failure, times = 1) {
      failures.add({ method: method.toLowerCase(), failure: { ...failure } }, times);
    },
    hangingCalls() {
      return server.heldCount;
    },
    hangNext(method, times = 1) {
      failures.add({ method: method.toLowerCase(), failure: 'hang' }, times);
    },
    reset() {
      bots.clear();
      chats.clear();
      messages.clear();
      webhooks.clear();
      callbackQueries.clear();
      failures.clear();
      calls.length = 0;
      callTimes.length = 0;
      sent.length = 0;
      edited.length = 0;
      fake.settings = { ...DEFAULT_SETTINGS };
      fake.down = false;
      nextMessageId = 400;
      nextUpdateId = 880_000;
      server.releaseHeld();
    },
    close: () => server.close(),
  };

  const server = startFakeServer(async (req) => answerResponse(await handle(req)));
  fake.url = server.origin;

  async function handle(req: Request): Promise<Answer> {
    if (fake.down) return { status: 502, body: BAD_GATEWAY_HTML, headers: { 'content-type': 'text/html' } };

    const url = new URL(req.url);
    const match = url.pathname.match(/^\/bot([^/]*)\/([^/]+)\/?$/);
    if (!match) return error(new Fail(404, 'Not Found'));
    const token = decodeURIComponent(match[1]!);
    const methodKey = match[2]!.toLowerCase();

    let params: Record<string, unknown>;
    try {
      params = await readParams(req, url);
    } catch (err) {
      if (err instanceof Fail) return error(err);
      throw err;
    }
    calls.push({
      token,
      method: METHOD_BY_KEY.get(methodKey) ?? match[2]!,
      body: params,
      httpMethod: req.method,
      contentType: req.headers.get('content-type'),
    });
    callTimes.push(Date.now());

    const pending = takeFailure(methodKey);
    if (pending === 'hang') {
      // A client that gives up (its timeout) is no longer held.
      await server.hold({ signal: req.signal });
      return error(new Fail(502, 'Bad Gateway'));
    }
    if (pending) {
      const parameters: Record<string, unknown> = {};
      if (pending.retry_after !== undefined) parameters.retry_after = pending.retry_after;
      if (pending.migrate_to_chat_id !== undefined) parameters.migrate_to_chat_id = pending.migrate_to_chat_id;
      const answer = error(new Fail(pending.error_code, pending.description, parameters));
      if (pending.retry_after !== undefined) answer.headers = { 'retry-after': String(pending.retry_after) };
      return answer;
    }

    // The Bot API server refuses malformed tokens before looking them up.
    if (!/^[1-9][0-9]*:[^/]+$/.test(token)) return error(new Fail(401, 'Unauthorized: invalid token specified'));
    const bot = bots.get(token);
    if (!bot) return error(new Fail(401, 'Unauthorized'));

    try {
      return ok(route(methodKey, params, token, bot));
    } catch (err) {
      if (err instanceof Fail) return error(err);
      throw err;
    }
  }

  function takeFailure(methodKey: string): FakeFailure | 'hang' | null {
    return failures.take((f) => f.method === methodKey || f.method === '*')?.failure ?? null;
  }

  function route(methodKey: string, params: Record<string, unknown>, token: string, bot: FakeBotSpec): unknown {
    switch (methodKey) {
      case 'getme':
        return {
          ...botUser(bot),
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
          can_connect_to_business: false,
          has_main_web_app: false,
        };
      case 'getchat':
        return publicChat(requireChat(params.chat_id));
      case 'getchatmember':
        return getChatMember(params);
      case 'sendmessage':
        return sendMessage(params, token, bot);
      case 'editmessagetext':
        return editMessageText(params, token);
      case 'setwebhook':
        return setWebhook(params, token);
      case 'deletewebhook': {
        const hook = webhooks.get(token);
        if (hook) {
          hook.url = '';
          if (bool(params.drop_pending_updates)) hook.pending_update_count = 0;
        }
        return true;
      }
      case 'getwebhookinfo': {
        const hook = webhooks.get(token);
        const info: Record<string, unknown> = {
          url: hook?.url ?? '',
          has_custom_certificate: false,
          pending_update_count: hook?.pending_update_count ?? 0,
        };
        if (hook && hook.url !== '') {
          info.max_connections = hook.max_connections;
          if (hook.allowed_updates.length > 0) info.allowed_updates = [...hook.allowed_updates];
        }
        return info;
      }
      case 'answercallbackquery': {
        const id = typeof params.callback_query_id === 'string' ? params.callback_query_id : '';
        const query = callbackQueries.get(id);
        if (!query || (query.answered && fake.settings.repeatCallbackAnswer === 'error')) {
          throw new Fail(400, 'Bad Request: query is too old and response timeout expired or query ID is invalid');
        }
        query.answered = true;
        return true;
      }
      default:
        throw new Fail(404, 'Not Found');
    }
  }

  function getChatMember(params: Record<string, unknown>): unknown {
    const chat = requireChat(params.chat_id);
    const userId = int(params.user_id);
    if (userId === null || userId <= 0) throw new Fail(400, 'Bad Request: invalid user_id specified');
    const spec = chat.members.get(userId);
    if (spec === 'not_found') throw new Fail(400, 'Bad Request: user not found');
    if (spec === 'inaccessible') throw new Fail(400, 'Bad Request: member list is inaccessible');
    return chatMember(spec ?? { status: 'left' }, userFor(userId), chat.type);
  }

  /** As Telegram: only a message the bot sent, only to a new text; the edited message is returned. */
  function editMessageText(params: Record<string, unknown>, token: string): unknown {
    const chat = requireChat(params.chat_id);
    const messageId = int(params.message_id);
    const text = typeof params.text === 'string' ? params.text : '';
    if (text.trim() === '') throw new Fail(400, 'Bad Request: message text is empty');
    if (Array.from(text).length > MAX_TEXT) throw new Fail(400, 'Bad Request: MESSAGE_TOO_LONG');
    const message = messageId === null ? undefined : messages.get(messageKey(chat.id, messageId));
    if (!message) throw new Fail(400, 'Bad Request: message to edit not found');
    if (message.text === text) {
      throw new Fail(
        400,
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      );
    }
    message.text = text;
    message.edit_date = Math.floor(Date.now() / 1000);
    edited.push({ token, chatId: chat.id, messageId: messageId!, text });
    return message;
  }

  function sendMessage(params: Record<string, unknown>, token: string, bot: FakeBotSpec): unknown {
    const chat = requireChat(params.chat_id);
    if (chat.migratedTo !== undefined) {
      throw new Fail(400, 'Bad Request: group chat was upgraded to a supergroup chat', { migrate_to_chat_id: chat.migratedTo });
    }
    checkCanSend(chat, bot);

    const raw = typeof params.text === 'string' ? params.text : params.text === undefined ? '' : String(params.text);
    const parseMode = typeof params.parse_mode === 'string' && params.parse_mode !== '' ? params.parse_mode : null;
    if (parseMode !== null && !['html', 'markdownv2', 'markdown'].includes(parseMode.toLowerCase())) {
      throw new Fail(400, 'Bad Request: unsupported parse_mode');
    }
    // Entities are only parsed for HTML; MarkdownV2 text is kept as sent.
    const text = parseMode?.toLowerCase() === 'html' ? parseHtml(raw) : raw;
    if (text.trim() === '') throw new Fail(400, 'Bad Request: message text is empty');
    if (Array.from(text).length > MAX_TEXT) throw new Fail(400, 'Bad Request: message is too long');

    const markup = params.reply_markup;
    checkReplyMarkup(markup);

    let replyTo: Record<string, unknown> | undefined;
    const replyParams = isObj(params.reply_parameters)
      ? params.reply_parameters
      : params.reply_to_message_id !== undefined
        ? { message_id: params.reply_to_message_id, allow_sending_without_reply: params.allow_sending_without_reply }
        : null;
    if (replyParams) {
      const replyId = int(replyParams.message_id);
      const replyChat = replyParams.chat_id !== undefined ? requireChat(replyParams.chat_id) : chat;
      const original = replyId === null ? undefined : messages.get(messageKey(replyChat.id, replyId));
      if (original) {
        const { reply_to_message: _nested, ...flat } = original;
        replyTo = flat;
      } else if (!bool(replyParams.allow_sending_without_reply)) {
        throw new Fail(400, 'Bad Request: message to be replied not found');
      }
    }

    const message: Record<string, unknown> = {
      message_id: nextMessageId++,
      date: Math.floor(Date.now() / 1000),
      chat: publicChat(chat),
      text,
    };
    if (chat.type === 'channel') message.sender_chat = publicChat(chat);
    else message.from = botUser(bot);
    if (replyTo) message.reply_to_message = replyTo;
    if (isObj(markup) && Array.isArray(markup.inline_keyboard)) message.reply_markup = markup;

    messages.set(messageKey(chat.id, message.message_id as number), message);
    sent.push({ token, chatId: chat.id, text, parse_mode: parseMode, reply_markup: markup ?? null, message });
    return message;
  }

  function checkCanSend(chat: Chat, bot: FakeBotSpec): void {
    if (chat.type === 'private') {
      if (chat.blocked) throw new Fail(403, 'Forbidden: bot was blocked by the user');
      if (chat.started === false) throw new Fail(403, "Forbidden: bot can't initiate conversation with a user");
      return;
    }
    const member = chat.members.get(bot.id);
    const status = typeof member === 'object' ? member.status : 'left';
    if (chat.type === 'channel') {
      if (status === 'creator') return;
      if (status === 'administrator' && typeof member === 'object' && member.can_post_messages === true) return;
      if (status === 'administrator' || status === 'member') {
        throw new Fail(400, 'Bad Request: need administrator rights in the channel chat');
      }
      throw new Fail(403, 'Forbidden: bot is not a member of the channel chat');
    }
    // Groups: the bot was added when the chat became known, unless a test says otherwise.
    if (status === 'kicked') throw new Fail(403, `Forbidden: bot was kicked from the ${chat.type} chat`);
    if (member !== undefined && status === 'left') throw new Fail(403, `Forbidden: bot is not a member of the ${chat.type} chat`);
  }

  function setWebhook(params: Record<string, unknown>, token: string): true {
    const url = typeof params.url === 'string' ? params.url : '';
    const secret = typeof params.secret_token === 'string' && params.secret_token !== '' ? params.secret_token : null;
    if (secret !== null && (secret.length > 256 || !/^[A-Za-z0-9_-]+$/.test(secret))) {
      throw new Fail(400, 'Bad Request: secret token contains unallowed characters');
    }
    const hook = webhooks.get(token) ?? {
      url: '',
      secret_token: null,
      allowed_updates: [],
      max_connections: 40,
      pending_update_count: 0,
    };
    if (url !== '') {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new Fail(400, 'Bad Request: bad webhook: Failed to resolve host: Name or service not known');
      }
      if (fake.settings.webhookRequiresHttps) {
        if (parsed.protocol !== 'https:') {
          throw new Fail(400, 'Bad Request: bad webhook: An HTTPS URL must be provided for webhook');
        }
        const port = parsed.port === '' ? 443 : Number(parsed.port);
        if (!WEBHOOK_PORTS.has(port)) {
          throw new Fail(400, 'Bad Request: bad webhook: Webhook can be set up only on ports 80, 88, 443 or 8443');
        }
      } else if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
        throw new Fail(400, 'Bad Request: bad webhook: Unsupported URL protocol');
      }
    }
    hook.url = url;
    hook.secret_token = secret;
    if (Array.isArray(params.allowed_updates)) hook.allowed_updates = params.allowed_updates.map(String);
    const maxConnections = int(params.max_connections);
    if (maxConnections !== null) hook.max_connections = Math.min(100, Math.max(1, maxConnections));
    if (bool(params.drop_pending_updates)) hook.pending_update_count = 0;
    webhooks.set(token, hook);
    return true;
  }

  function requireChat(chatId: unknown): Chat {
    const chat = findChat(chatId);
    if (!chat) {
      if (chatId === undefined || chatId === '') throw new Fail(400, 'Bad Request: chat_id is empty');
      throw new Fail(400, 'Bad Request: chat not found');
    }
    return chat;
  }

  function findChat(chatId: unknown): Chat | undefined {
    if (typeof chatId === 'string' && chatId.startsWith('@')) {
      const name = chatId.slice(1).toLowerCase();
      return [...chats.values()].find((c) => c.username?.toLowerCase() === name);
    }
    const id = int(chatId);
    return id === null ? undefined : chats.get(id);
  }

  function createChat(chatId: number | string): Chat {
    const id = int(chatId);
    if (id === null) throw new Error(`fake Telegram: add chat ${chatId} with addChat() first`);
    const type: FakeChatType = id <= -1_000_000_000_000 ? 'channel' : id < 0 ? 'group' : 'private';
    const chat: Chat = { id, type, members: new Map() };
    if (type === 'private') chat.first_name = `User ${id}`;
    else chat.title = `Chat ${id}`;
    chats.set(id, chat);
    return chat;
  }

  function userFor(userId: number): Record<string, unknown> {
    const bot = [...bots.values()].find((b) => b.id === userId);
    if (bot) return botUser(bot);
    const chat = chats.get(userId);
    return { id: userId, is_bot: false, first_name: chat?.first_name ?? `User ${userId}` };
  }

  return fake;
}

// ---------------------------------------------------------------------------------------------
// Shapes

function botUser(bot: FakeBotSpec): Record<string, unknown> {
  return { id: bot.id, is_bot: true, first_name: bot.first_name, username: bot.username };
}

function publicChat(chat: FakeChatSpec): Record<string, unknown> {
  const out: Record<string, unknown> = { id: chat.id, type: chat.type };
  for (const key of ['title', 'username', 'first_name', 'last_name'] as const) {
    if (chat[key] !== undefined) out[key] = chat[key];
  }
  return out;
}

const ADMIN_FLAGS = [
  'can_be_edited',
  'is_anonymous',
  'can_manage_chat',
  'can_delete_messages',
  'can_manage_video_chats',
  'can_restrict_members',
  'can_promote_members',
  'can_change_info',
  'can_invite_users',
  'can_post_stories',
  'can_edit_stories',
  'can_delete_stories',
] as const;

function chatMember(spec: Exclude<FakeMemberSpec, string>, user: Record<string, unknown>, chatType: FakeChatType): Record<string, unknown> {
  const { status, ...extra } = spec;
  const base: Record<string, unknown> = { user, status };
  switch (status) {
    case 'creator':
      return { ...base, is_anonymous: false, ...extra };
    case 'administrator': {
      const flags: Record<string, unknown> = Object.fromEntries(ADMIN_FLAGS.map((f) => [f, false]));
      // Any administrator right implies can_manage_chat; the posting flags exist only where they apply.
      flags.can_manage_chat = true;
      if (chatType === 'channel') Object.assign(flags, { can_post_messages: false, can_edit_messages: false });
      else Object.assign(flags, { can_pin_messages: false });
      return { ...base, ...flags, ...extra };
    }
    case 'restricted':
      return { ...base, is_member: true, can_send_messages: false, until_date: 0, ...extra };
    case 'kicked':
      return { ...base, until_date: 0, ...extra };
    default:
      return { ...base, ...extra };
  }
}

// ---------------------------------------------------------------------------------------------
// Parameters

async function readParams(req: Request, url: URL): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = queryParams(url);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    const type = (req.headers.get('content-type') ?? '').toLowerCase();
    if (type.includes('application/json')) {
      const text = await req.text();
      if (text.trim() !== '') {
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw new Fail(400, "Bad Request: can't parse JSON object");
        }
        if (!isObj(body)) throw new Fail(400, "Bad Request: can't parse JSON object");
        Object.assign(params, body);
      }
    } else {
      await readFormFields(req, type, params);
    }
  }
  for (const key of JSON_PARAMS) {
    const value = params[key];
    if (typeof value === 'string') {
      try {
        params[key] = JSON.parse(value);
      } catch {
        throw new Fail(400, `Bad Request: can't parse ${key.replace(/_/g, ' ')} JSON object`);
      }
    }
  }
  return params;
}

function checkReplyMarkup(markup: unknown): void {
  if (markup === undefined || markup === null) return;
  if (!isObj(markup)) throw new Fail(400, "Bad Request: can't parse reply keyboard markup JSON object");
  if (!('inline_keyboard' in markup)) return;
  const rows = markup.inline_keyboard;
  if (!Array.isArray(rows) || rows.some((row) => !Array.isArray(row))) {
    throw new Fail(400, 'Bad Request: field "inline_keyboard" of the InlineKeyboardMarkup should be an Array of Arrays');
  }
  for (const row of rows as unknown[][]) {
    for (const button of row) {
      if (!isObj(button) || typeof button.text !== 'string') {
        throw new Fail(400, 'Bad Request: can\'t find field "text"');
      }
      if ('callback_data' in button) {
        const data = typeof button.callback_data === 'string' ? button.callback_data : '';
        const bytes = new TextEncoder().encode(data).length;
        if (bytes === 0 || bytes > MAX_CALLBACK_DATA_BYTES) throw new Fail(400, 'Bad Request: BUTTON_DATA_INVALID');
      } else if (!('url' in button) && !('web_app' in button) && !('switch_inline_query' in button) && !('pay' in button)) {
        throw new Fail(400, 'Bad Request: text buttons are unallowed in the inline keyboard');
      }
    }
  }
}

const HTML_TAGS = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'span', 'tg-spoiler', 'a', 'code', 'pre', 'blockquote', 'tg-emoji']);
const HTML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"' };

/**
 * Checks tags the way the Bot API's HTML parser does (supported tags only, properly nested) and
 * returns the text without markup, which is what length limits and the returned Message use.
 */
function parseHtml(html: string): string {
  const open: string[] = [];
  let out = '';
  let i = 0;
  const byteOffset = (index: number) => new TextEncoder().encode(html.slice(0, index)).length;
  while (i < html.length) {
    const ch = html[i]!;
    if (ch === '<') {
      const end = html.indexOf('>', i);
      if (end < 0) throw new Fail(400, `Bad Request: can't parse entities: Unclosed start tag at byte offset ${byteOffset(i)}`);
      const inner = html.slice(i + 1, end);
      if (inner.startsWith('/')) {
        const name = inner.slice(1).trim().toLowerCase();
        const expected = open.pop();
        if (expected === undefined) {
          throw new Fail(400, `Bad Request: can't parse entities: Unexpected end tag at byte offset ${byteOffset(i)}`);
        }
        if (name !== expected) {
          throw new Fail(400, `Bad Request: can't parse entities: Unmatched end tag at byte offset ${byteOffset(i)}, expected "</${expected}>", found "</${name}>"`);
        }
      } else {
        const name = (inner.match(/^[A-Za-z-]+/)?.[0] ?? '').toLowerCase();
        if (!HTML_TAGS.has(name)) {
          throw new Fail(400, `Bad Request: can't parse entities: Unsupported start tag "${name || inner}" at byte offset ${byteOffset(i)}`);
        }
        open.push(name);
      }
      i = end + 1;
      continue;
    }
    if (ch === '&') {
      const m = html.slice(i).match(/^&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/);
      if (m) {
        const ref = m[1]!;
        if (ref.startsWith('#x')) out += String.fromCodePoint(parseInt(ref.slice(2), 16));
        else if (ref.startsWith('#')) out += String.fromCodePoint(parseInt(ref.slice(1), 10));
        else if (HTML_ENTITIES[ref] !== undefined) out += HTML_ENTITIES[ref];
        else out += m[0];
        i += m[0].length;
        continue;
      }
    }
    out += ch;
    i += 1;
  }
  if (open.length > 0) {
    throw new Fail(400, `Bad Request: can't parse entities: Can't find end tag corresponding to start tag "${open[open.length - 1]}"`);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Helpers

function ok(result: unknown): Answer {
  return { status: 200, body: { ok: true, result } };
}

function error(fail: Fail): Answer {
  const body: Record<string, unknown> = { ok: false, error_code: fail.code, description: fail.description };
  if (fail.parameters && Object.keys(fail.parameters).length > 0) body.parameters = fail.parameters;
  return { status: fail.code, body };
}

function messageKey(chatId: number, messageId: number): string {
  return `${chatId}/${messageId}`;
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function int(value: unknown): number | null {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (typeof value === 'string' && /^-?[0-9]+$/.test(value.trim())) {
    const n = Number(value.trim());
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

function bool(value: unknown): boolean {
  return value === true || value === 'true' || value === '1' || value === 1;
}
