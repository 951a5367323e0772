// A fake VK API for tests: a real HTTP server speaking the wire format of docs/integrations/vk.md —
// `/method/<name>` over GET or POST, parameters from the query string, a form body or a JSON body,
// and always HTTP 200 with {response} or {error: {error_code, error_msg, request_params}}.
// State lives in memory: communities with their tokens, callback servers, sent messages (deduplicated by
// random_id like VK), callback-button events and their answers.
//
// Where the doc marks real behaviour as unconfirmed, the choice made here is noted at the spot.
import { FailureQueue, queryParams, readFormFields, startFakeServer } from './fake-server';

import type { FakeVkRights, FakeVkGroupSpec, FakeVkError, FakeCallbackServer, FakeVkSettings, ConfirmationResult, FakeVk } from './vk-types';
export type {
  FakeVkRights,
  FakeVkGroupSpec,
  FakeVkError,
  RecordedVkCall,
  FakeSentMessage,
  FakeActivity,
  FakeCallbackServerStatus,
  FakeCallbackServer,
  FakeEventAnswer,
  FakeVkSettings,
  ConfirmationResult,
  FakeVk,
} from './vk-types';

const DEFAULT_SETTINGS: FakeVkSettings = {
  getByIdShape: 'groups',
  maxMessageLength: 4096,
  requireKnownEventIds: true,
  eventTtlMs: 60_000,
  autoConfirm: false,
  rotateConfirmationCode: true,
};

const METHODS = new Set([
  'groups.getById',
  'groups.getCallbackConfirmationCode',
  'groups.getCallbackServers',
  'groups.addCallbackServer',
  'groups.editCallbackServer',
  'groups.deleteCallbackServer',
  'groups.setCallbackSettings',
  'groups.getCallbackSettings',
  'messages.send',
  'messages.sendMessageEventAnswer',
  'messages.setActivity',
]);

/** The event flags groups.getCallbackSettings lists; setCallbackSettings ignores other names. */
const CALLBACK_EVENTS = [
  'message_new',
  'message_reply',
  'message_edit',
  'message_allow',
  'message_deny',
  'message_typing_state',
  'message_event',
  'message_reaction_event',
  'group_join',
  'group_leave',
  'wall_post_new',
] as const;

const MAX_SERVERS = 10;
const CHAT_PEER_BASE = 2_000_000_000;
const KEYBOARD_LIMITS = {
  standard: { perRow: 5, rows: 10, total: 40 },
  inline: { perRow: 5, rows: 6, total: 10 },
};
const BUTTON_TYPES = new Set(['text', 'callback', 'open_link', 'location', 'vkpay', 'open_app']);
const BUTTON_COLORS = new Set(['primary', 'secondary', 'positive', 'negative', 'default']);

const MSG = {
  noToken: 'User authorization failed: no access_token passed.',
  badToken: 'User authorization failed: invalid access_token (4).',
  noVersion: 'Invalid request: v is required. Version param should be passed as "v". "version" param is invalid and not supported.',
  oldVersion:
    'Invalid request: versions below 5.81 are deprecated. Version param should be passed as "v". "version" param is invalid and not supported. For more information go to https://vk.com/dev/constant_version_updates',
  unknownMethod: 'Unknown method passed',
  permission: 'Permission to perform this action is denied',
  groupAuth: 'Group authorization failed: method is unavailable with group auth.',
  param: (detail: string) => `One of the parameters specified was missing or invalid: ${detail}`,
  notFound: 'Not found',
  serversLimit: 'Servers number limit is reached',
  denySend: "Can't send messages for users without permission",
  keyboard: 'Keyboard format is invalid',
  chatBot: 'This is a chat bot feature, change this status in settings',
  tooLong: 'Message is too long',
  internal: 'Internal server error',
};

class Fail {
  constructor(
    readonly code: number,
    readonly msg: string,
    readonly extra: Record<string, unknown> = {},
  ) {}
}

interface Group {
  spec: FakeVkGroupSpec;
  confirmationCode: string;
  allowed: Set<number>;
  denied: Set<number>;
  /** random_id → message id, per community, like VK's history check. */
  randomIds: Map<number, number>;
  conversationIds: Map<number, number>;
}

interface TokenInfo {
  groupId: number;
  rights: Required<FakeVkRights>;
}

interface PendingFailure {
  method: string;
  failure: { kind: 'error'; error: FakeVkError } | { kind: 'http'; status: number } | { kind: 'hang' };
}

type Answer = { status: number; body: string; contentType: string };

export async function startFakeVk(): Promise<FakeVk> {
  const groups = new Map<number, Group>();
  const tokens = new Map<string, TokenInfo>();
  const events = new Map<string, { groupId: number; userId: number; peerId: number; at: number }>();
  const failures = new FailureQueue<PendingFailure>();
  const confirming = new Set<Promise<unknown>>();
  let nextMessageId = 3190;
  let nextServerId = 1;

  const voiceFiles = new Map<string, Uint8Array>();
  const fake: FakeVk = {
    url: '',
    cdnUrl: '',
    voiceDownloads: [],
    addVoiceFile(name, bytes) {
      voiceFiles.set(name, bytes);
      return `${fake.cdnUrl}/${name}`;
    },
    calls: [],
    sentMessages: [],
    callbackServers: [],
    eventAnswers: [],
    activities: [],
    settings: { ...DEFAULT_SETTINGS },
    addGroup(spec) {
      const existing = groups.get(spec.id);
      groups.set(spec.id, {
        spec: { ...spec },
        confirmationCode: spec.confirmationCode,
        allowed: existing?.allowed ?? new Set(),
        denied: existing?.denied ?? new Set(),
        randomIds: existing?.randomIds ?? new Map(),
        conversationIds: existing?.conversationIds ?? new Map(),
      });
      fake.addToken(spec.token, spec.id, spec.rights);
    },
    addToken(token, groupId, rights) {
      if (!groups.has(groupId)) throw new Error(`fake VK: add group ${groupId} with addGroup() first`);
      tokens.set(token, { groupId, rights: { messages: rights?.messages ?? true, manage: rights?.manage ?? true } });
    },
    setConfirmationCode(groupId, code) {
      requireGroupForTest(groupId).confirmationCode = code;
    },
    confirmationCodeOf(groupId) {
      return requireGroupForTest(groupId).confirmationCode;
    },
    allowMessages(groupId, peerId) {
      const group = requireGroupForTest(groupId);
      group.denied.delete(peerId);
      group.allowed.add(peerId);
    },
    denyMessages(groupId, peerId) {
      const group = requireGroupForTest(groupId);
      group.allowed.delete(peerId);
      group.denied.add(peerId);
    },
    addMessageEvent(event) {
      events.set(eventKey(event.groupId, event.eventId), { ...event, at: Date.now() });
    },
    confirmServer(groupId, serverId) {
      const server = fake.callbackServers.find((s) => s.groupId === groupId && s.id === serverId);
      if (!server) throw new Error(`fake VK: no callback server ${serverId} in group ${groupId}`);
      return confirm(server);
    },
    async idle() {
      while (confirming.size > 0) await Promise.allSettled([...confirming]);
    },
    failNext(method, error, times = 1) {
      failures.add({ method, failure: { kind: 'error', error: { ...error } } }, times);
    },
    failNextHttp(method, status, times = 1) {
      failures.add({ method, failure: { kind: 'http', status } }, times);
    },
    hangNext(method, times = 1) {
      failures.add({ method, failure: { kind: 'hang' } }, times);
    },
    reset() {
      voiceFiles.clear();
      fake.voiceDownloads.length = 0;
      groups.clear();
      tokens.clear();
      events.clear();
      failures.clear();
      fake.calls.length = 0;
      fake.sentMessages.length = 0;
      fake.callbackServers.length = 0;
      fake.eventAnswers.length = 0;
      fake.activities.length = 0;
      fake.settings = { ...DEFAULT_SETTINGS };
      nextMessageId = 3190;
      nextServerId = 1;
      server.releaseHeld();
    },
    close: () => server.close(),
  };

  const server = startFakeServer(async (req) => {
    const voice = /^\/audio\/([^/]+)$/.exec(new URL(req.url).pathname);
    if (voice && req.method === 'GET') {
      fake.voiceDownloads.push(voice[1]!);
      const bytes = voiceFiles.get(voice[1]!);
      return bytes ? new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': 'audio/ogg' } }) : new Response('Not Found', { status: 404 });
    }
    const answer = await handle(req);
    return new Response(answer.body, { status: answer.status, headers: { 'content-type': answer.contentType } });
  });
  fake.url = `${server.origin}/method`;
  fake.cdnUrl = `${server.origin}/audio`;

  function requireGroupForTest(groupId: number): Group {
    const group = groups.get(groupId);
    if (!group) throw new Error(`fake VK: add group ${groupId} with addGroup() first`);
    return group;
  }

  async function handle(req: Request): Promise<Answer> {
    const url = new URL(req.url);
    const match = url.pathname.match(/^\/method\/([^/]+)\/?$/);
    if (!match) return { status: 404, body: '<html><body><h1>404 Not Found</h1></body></html>', contentType: 'text/html' };
    const method = decodeURIComponent(match[1]!);

    let params: Record<string, string>;
    try {
      params = await readParams(req, url);
    } catch {
      params = {};
    }
    const bearer = req.headers
      .get('authorization')
      ?.match(/^Bearer\s+(.+)$/i)?.[1]
      ?.trim();
    const token = params.access_token ?? bearer ?? null;
    fake.calls.push({ method, params, token, httpMethod: req.method, contentType: req.headers.get('content-type') });

    const pending = takeFailure(method);
    if (pending?.kind === 'hang') {
      await server.hold();
      return envelopeError(method, params, new Fail(10, MSG.internal));
    }
    if (pending?.kind === 'http') {
      return {
        status: pending.status,
        body: `<html>\r\n<head><title>${pending.status}</title></head>\r\n<body>\r\n<center><h1>${pending.status}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`,
        contentType: 'text/html',
      };
    }
    if (pending?.kind === 'error') {
      const { error_code, error_msg, ...extra } = pending.error;
      return envelopeError(method, params, new Fail(error_code, error_msg, extra));
    }

    try {
      // The order of these checks in real VK is unconfirmed; a call without v fails even without a token.
      const version = params.v;
      if (version === undefined || version === '') throw new Fail(8, MSG.noVersion);
      if (!isSupportedVersion(version)) throw new Fail(8, MSG.oldVersion);
      if (!METHODS.has(method)) throw new Fail(3, MSG.unknownMethod);
      if (token === null || token === '') throw new Fail(5, MSG.noToken);
      const auth = tokens.get(token);
      const group = auth ? groups.get(auth.groupId) : undefined;
      if (!auth || !group) throw new Fail(5, MSG.badToken);
      const response = await route(method, params, auth, group);
      return { status: 200, body: JSON.stringify({ response }), contentType: 'application/json; charset=utf-8' };
    } catch (err) {
      if (err instanceof Fail) return envelopeError(method, params, err);
      throw err;
    }
  }

  function takeFailure(method: string): PendingFailure['failure'] | null {
    return failures.take((f) => f.method === method || f.method === '*')?.failure ?? null;
  }

  async function route(method: string, params: Record<string, string>, auth: TokenInfo, group: Group): Promise<unknown> {
    switch (method) {
      case 'groups.getById':
        return getById(params, group);
      case 'messages.send':
        requireRight(auth, 'messages');
        return send(params, group);
      case 'messages.sendMessageEventAnswer':
        requireRight(auth, 'messages');
        return answerEvent(params, group);
      case 'messages.setActivity':
        requireRight(auth, 'messages');
        return setActivity(params, group);
    }

    requireRight(auth, 'manage');
    ownGroup(params, group);
    switch (method) {
      case 'groups.getCallbackConfirmationCode':
        return { code: group.confirmationCode };
      case 'groups.getCallbackServers': {
        const ids = params.server_ids ? params.server_ids.split(',').map((s) => Number(s.trim())) : null;
        const items = serversOf(group.spec.id)
          .filter((s) => ids === null || ids.includes(s.id))
          .map((s) => ({ id: s.id, title: s.title, creator_id: s.creator_id, url: s.url, secret_key: s.secret_key, status: s.status }));
        return { count: items.length, items };
      }
      case 'groups.addCallbackServer': {
        if (serversOf(group.spec.id).length >= MAX_SERVERS) throw new Fail(2000, MSG.serversLimit);
        const fields = serverFields(params);
        const server: FakeCallbackServer = {
          groupId: group.spec.id,
          id: nextServerId++,
          title: fields.title,
          url: fields.url,
          secret_key: fields.secret_key ?? '',
          status: 'unconfigured',
          creator_id: group.spec.adminId ?? 1,
          api_version: '',
          events: Object.fromEntries(CALLBACK_EVENTS.map((e) => [e, 0])),
        };
        fake.callbackServers.push(server);
        scheduleConfirmation(server, group);
        return { server_id: server.id };
      }
      case 'groups.editCallbackServer': {
        const server = requireServer(params, group);
        const fields = serverFields(params);
        const urlChanged = fields.url !== server.url;
        server.url = fields.url;
        server.title = fields.title;
        if (fields.secret_key !== undefined) server.secret_key = fields.secret_key;
        if (urlChanged) server.status = 'unconfigured';
        scheduleConfirmation(server, group, urlChanged);
        return 1;
      }
      case 'groups.deleteCallbackServer': {
        const server = requireServer(params, group);
        fake.callbackServers.splice(fake.callbackServers.indexOf(server), 1);
        return 1;
      }
      case 'groups.setCallbackSettings': {
        const server = requireServer(params, group);
        if (params.api_version !== undefined) server.api_version = params.api_version;
        for (const name of CALLBACK_EVENTS) {
          const value = params[name];
          if (value !== undefined) server.events[name] = value === '1' || value === 'true' ? 1 : 0;
        }
        return 1;
      }
      case 'groups.getCallbackSettings': {
        const server = requireServer(params, group);
        return { api_version: server.api_version, events: { ...server.events } };
      }
    }
    throw new Fail(3, MSG.unknownMethod);
  }

  function getById(params: Record<string, string>, own: Group): unknown {
    const raw = params.group_ids ?? params.group_id;
    const wanted = raw === undefined || raw === '' ? [String(own.spec.id)] : raw.split(',').map((s) => s.trim());
    const found = wanted.map((key) => {
      const group = [...groups.values()].find((g) => String(g.spec.id) === key.replace(/^club|^public/, '') || (g.spec.screenName ?? '') === key);
      // VK answers 100 "…: group_ids is undefined" for a community it does not know: public VK clients
      // read exactly that text as "no such community" (OpenVK's VK-compatible API fails the same way).
      if (!group) throw new Fail(100, MSG.param('group_ids is undefined'));
      return groupObject(group.spec);
    });
    return fake.settings.getByIdShape === 'legacy' ? found : { groups: found, profiles: [] };
  }

  function send(params: Record<string, string>, group: Group): unknown {
    const randomId = integer(params.random_id);
    if (randomId === null) throw new Fail(100, MSG.param('random_id is a required parameter'));

    const many = params.peer_ids !== undefined;
    const peers = many ? params.peer_ids!.split(',').map((s) => integer(s.trim())) : [integer(params.peer_id ?? params.user_id)];
    if (peers.length === 0 || peers.some((p) => p === null || p === 0)) {
      throw new Fail(100, MSG.param(many ? 'peer_ids is invalid' : 'peer_id is undefined'));
    }
    if (peers.length > 100) throw new Fail(100, MSG.param('peer_ids is too long'));

    const text = params.message ?? '';
    if (text.trim() === '' && !params.attachment) throw new Fail(100, MSG.param('message is empty or invalid'));
    if (Array.from(text).length > fake.settings.maxMessageLength) throw new Fail(914, MSG.tooLong);

    let keyboard: unknown = null;
    if (params.keyboard !== undefined) {
      keyboard = checkKeyboard(params.keyboard);
      const k = keyboard as { buttons: unknown[] };
      if (k.buttons.length > 0 && group.spec.botCapabilities === false) throw new Fail(912, MSG.chatBot);
    }
    let payload: unknown = null;
    if (params.payload !== undefined) {
      if (params.payload.length > 1000) throw new Fail(100, MSG.param('payload is too long'));
      payload = parseMaybeJson(params.payload);
    }

    const results = (peers as number[]).map((peerId) => {
      if (!canWrite(group, peerId)) {
        if (!many) throw new Fail(901, MSG.denySend);
        return { peer_id: peerId, error: { code: 901, description: MSG.denySend } };
      }
      // random_id 0 means "no dedupe" for communities; otherwise a repeat is not delivered again.
      // What the repeat returns is unconfirmed: this fake answers with the earlier message id.
      const dedupeKey = many ? null : randomId;
      const earlier = dedupeKey !== null && dedupeKey !== 0 ? group.randomIds.get(dedupeKey) : undefined;
      if (earlier !== undefined) {
        const original = fake.sentMessages.find((m) => m.groupId === group.spec.id && m.messageId === earlier)!;
        return { peer_id: peerId, message_id: earlier, conversation_message_id: original.conversationMessageId };
      }
      const messageId = nextMessageId++;
      const conversationMessageId = (group.conversationIds.get(peerId) ?? 0) + 1;
      group.conversationIds.set(peerId, conversationMessageId);
      if (dedupeKey !== null && dedupeKey !== 0) group.randomIds.set(dedupeKey, messageId);
      fake.sentMessages.push({
        groupId: group.spec.id,
        peerId,
        message: text,
        randomId,
        keyboard,
        payload,
        messageId,
        conversationMessageId,
      });
      return { peer_id: peerId, message_id: messageId, conversation_message_id: conversationMessageId };
    });
    return many ? results : results[0]!.message_id;
  }

  function canWrite(group: Group, peerId: number): boolean {
    if (group.denied.has(peerId)) return false;
    if (peerId >= CHAT_PEER_BASE) return true;
    return group.spec.messagesFromAnyone !== false || group.allowed.has(peerId);
  }

  /** «печатает…»: peer_id and type are required; a client who denied messages cannot be shown it. */
  function setActivity(params: Record<string, string>, group: Group): unknown {
    const peerId = integer(params.peer_id ?? params.user_id);
    if (peerId === null || peerId === 0) throw new Fail(100, MSG.param('peer_id is undefined'));
    if (params.type !== 'typing' && params.type !== 'audiomessage') throw new Fail(100, MSG.param('type is invalid'));
    if (params.group_id !== undefined && integer(params.group_id) !== group.spec.id) throw new Fail(100, MSG.param('group_id is invalid'));
    if (!canWrite(group, peerId)) throw new Fail(901, MSG.denySend);
    fake.activities.push({ groupId: group.spec.id, peerId, type: params.type, sentBefore: fake.sentMessages.length });
    return 1;
  }

  function answerEvent(params: Record<string, string>, group: Group): unknown {
    for (const name of ['event_id', 'user_id', 'peer_id']) {
      if (!params[name]) throw new Fail(100, MSG.param(`${name} is undefined`));
    }
    const userId = integer(params.user_id);
    const peerId = integer(params.peer_id);
    if (userId === null || peerId === null) throw new Fail(100, MSG.param('user_id is invalid'));
    let eventData: unknown = null;
    if (params.event_data !== undefined) {
      if (params.event_data.length > 1000) throw new Fail(100, MSG.param('event_data is too long'));
      eventData = parseMaybeJson(params.event_data);
      if (typeof eventData !== 'object' || eventData === null) throw new Fail(100, MSG.param('event_data is invalid'));
    }
    if (fake.settings.requireKnownEventIds) {
      // VK's answer to an unknown or expired event, as bots log it (Elytrium/LimboAuth-SocialAddon#39, #52):
      // 100 "One of the parameters specified was missing or invalid: invalid event_id".
      const known = events.get(eventKey(group.spec.id, params.event_id!));
      if (!known || known.userId !== userId || known.peerId !== peerId || Date.now() - known.at > fake.settings.eventTtlMs) {
        throw new Fail(100, MSG.param('invalid event_id'));
      }
    }
    fake.eventAnswers.push({ groupId: group.spec.id, eventId: params.event_id!, userId, peerId, eventData });
    return 1;
  }

  function ownGroup(params: Record<string, string>, group: Group): void {
    const id = integer(params.group_id);
    if (params.group_id === undefined || params.group_id === '') throw new Fail(100, MSG.param('group_id is undefined'));
    if (id === null || id <= 0) throw new Fail(100, MSG.param('group_id is invalid'));
    // The doc gives 27 (or 15) for a token used on another community.
    if (id !== group.spec.id) throw new Fail(27, MSG.groupAuth);
  }

  function requireRight(auth: TokenInfo, right: keyof FakeVkRights): void {
    if (!auth.rights[right]) throw new Fail(7, MSG.permission);
  }

  function requireServer(params: Record<string, string>, group: Group): FakeCallbackServer {
    const id = integer(params.server_id);
    if (id === null) throw new Fail(100, MSG.param('server_id is undefined'));
    const server = fake.callbackServers.find((s) => s.groupId === group.spec.id && s.id === id);
    if (!server) throw new Fail(104, MSG.notFound);
    return server;
  }

  function serversOf(groupId: number): FakeCallbackServer[] {
    return fake.callbackServers.filter((s) => s.groupId === groupId);
  }

  function serverFields(params: Record<string, string>): { url: string; title: string; secret_key?: string } {
    const url = params.url;
    if (!url) throw new Fail(100, MSG.param('url is undefined'));
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Fail(100, MSG.param('url is invalid'));
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Fail(100, MSG.param('url is invalid'));
    const title = params.title;
    if (!title) throw new Fail(100, MSG.param('title is undefined'));
    if (Array.from(title).length > 14) throw new Fail(100, MSG.param('title is too long'));
    const secret = params.secret_key;
    if (secret !== undefined && Array.from(secret).length > 50) throw new Fail(100, MSG.param('secret_key is too long'));
    return { url, title, secret_key: secret };
  }

  /** After an add or edit: VK's own confirmation when the URL is new, then (rotateConfirmationCode) a new code. */
  function scheduleConfirmation(server: FakeCallbackServer, group: Group, confirmNeeded = true): void {
    const rotate = () => {
      if (fake.settings.rotateConfirmationCode) group.confirmationCode = newConfirmationCode(group.confirmationCode);
    };
    if (!fake.settings.autoConfirm || !confirmNeeded) {
      rotate();
      return;
    }
    // VK confirms after answering the API call, so the app sees its own call finish first.
    const job = new Promise<void>((resolve) => setTimeout(resolve, 5))
      .then(() => confirm(server))
      .catch(() => undefined)
      .finally(() => {
        rotate();
        confirming.delete(job);
      });
    confirming.add(job);
  }

  async function confirm(server: FakeCallbackServer): Promise<ConfirmationResult> {
    const group = groups.get(server.groupId);
    const body: Record<string, unknown> = { type: 'confirmation', group_id: server.groupId };
    if (server.secret_key !== '') body.secret = server.secret_key;
    server.status = 'wait';
    try {
      const response = await fetch(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(5000),
      });
      const text = await response.text();
      const ok = response.status === 200 && group !== undefined && text === group.confirmationCode;
      server.status = ok ? 'ok' : 'failed';
      return { status: server.status, httpStatus: response.status, body: text };
    } catch {
      server.status = 'failed';
      return { status: 'failed', httpStatus: null, body: null };
    }
  }

  return fake;
}

// ---------------------------------------------------------------------------------------------

function groupObject(spec: FakeVkGroupSpec): Record<string, unknown> {
  return {
    id: spec.id,
    name: spec.name,
    screen_name: spec.screenName ?? `club${spec.id}`,
    is_closed: 0,
    type: 'group',
    photo_50: `https://example.invalid/club${spec.id}_50.jpg`,
    photo_100: `https://example.invalid/club${spec.id}_100.jpg`,
    photo_200: `https://example.invalid/club${spec.id}_200.jpg`,
  };
}

/** VK's codes are 8 hex digits; a new one never repeats the old. */
function newConfirmationCode(previous: string): string {
  for (;;) {
    const code = crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16).padStart(8, '0');
    if (code !== previous) return code;
  }
}

function envelopeError(method: string, params: Record<string, string>, fail: Fail): Answer {
  // VK echoes the call without the token.
  const requestParams = [
    { key: 'method', value: method },
    { key: 'oauth', value: '1' },
    ...Object.entries(params)
      .filter(([key]) => key !== 'access_token')
      .map(([key, value]) => ({ key, value })),
  ];
  return {
    status: 200,
    body: JSON.stringify({ error: { error_code: fail.code, error_msg: fail.msg, request_params: requestParams, ...fail.extra } }),
    contentType: 'application/json; charset=utf-8',
  };
}

/** Validates a keyboard the way messages.send does: anything off is 911 for the whole message. */
function checkKeyboard(raw: string): unknown {
  const bad = () => new Fail(911, MSG.keyboard);
  let keyboard: unknown;
  try {
    keyboard = JSON.parse(raw);
  } catch {
    throw bad();
  }
  if (!isObj(keyboard) || !Array.isArray(keyboard.buttons)) throw bad();
  const rows = keyboard.buttons as unknown[];
  const limits = keyboard.inline === true ? KEYBOARD_LIMITS.inline : KEYBOARD_LIMITS.standard;
  if (rows.length > limits.rows) throw bad();
  let total = 0;
  for (const row of rows) {
    if (!Array.isArray(row) || row.length === 0 || row.length > limits.perRow) throw bad();
    total += row.length;
    for (const button of row) {
      if (!isObj(button) || !isObj(button.action)) throw bad();
      const action = button.action;
      if (typeof action.type !== 'string' || !BUTTON_TYPES.has(action.type)) throw bad();
      if (action.type === 'text' || action.type === 'callback') {
        if (typeof action.label !== 'string' || action.label === '' || action.label.length > 40) throw bad();
      }
      if (action.payload !== undefined) {
        if (typeof action.payload !== 'string' || action.payload.length > 255) throw bad();
        try {
          JSON.parse(action.payload);
        } catch {
          throw bad();
        }
      }
      if (button.color !== undefined && (typeof button.color !== 'string' || !BUTTON_COLORS.has(button.color))) throw bad();
    }
  }
  if (total > limits.total) throw bad();
  return keyboard;
}

async function readParams(req: Request, url: URL): Promise<Record<string, string>> {
  const params = queryParams(url);
  if (req.method === 'GET' || req.method === 'HEAD') return params;
  const type = (req.headers.get('content-type') ?? '').toLowerCase();
  if (type.includes('application/json')) {
    const body: unknown = JSON.parse(await req.text());
    if (isObj(body)) {
      for (const [key, value] of Object.entries(body)) {
        if (value === undefined || value === null) continue;
        params[key] = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
      }
    }
  } else {
    await readFormFields(req, type, params);
  }
  return params;
}

/** "5.199" is newer than "5.81": versions compare part by part, not as decimals. */
function isSupportedVersion(version: string): boolean {
  const match = version.trim().match(/^(\d+)\.(\d+)$/);
  if (!match) return false;
  const major = Number(match[1]);
  return major > 5 || (major === 5 && Number(match[2]) >= 81);
}

function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function integer(value: string | undefined): number | null {
  if (value === undefined || !/^-?\d+$/.test(value.trim())) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

function eventKey(groupId: number, eventId: string): string {
  return `${groupId}:${eventId}`;
}

function isObj(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
