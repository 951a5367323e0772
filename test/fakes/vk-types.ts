// What tests hand the fake VK and read back from it: communities, calls, sent messages, callback servers,
// event answers and settings. The fake itself (test/fakes/vk.ts) re-exports them, so tests import from there.
export interface FakeVkRights {
  /** "messages" right: messages.send, messages.sendMessageEventAnswer. Default true. */
  messages?: boolean;
  /** Community management: the groups.*Callback* methods. Default true. */
  manage?: boolean;
}

export interface FakeVkGroupSpec {
  id: number;
  name: string;
  /** A community token of this group (more can be added with addToken). */
  token: string;
  confirmationCode: string;
  screenName?: string;
  rights?: FakeVkRights;
  /** "Bot capabilities" in the community settings; when off, a message with a keyboard gets 912. Default true. */
  botCapabilities?: boolean;
  /**
   * Real VK delivers only to users who wrote to the community or allowed its messages. Tests rarely care,
   * so by default every peer is reachable except those passed to denyMessages(); false makes it strict.
   */
  messagesFromAnyone?: boolean;
  /** `creator_id` of callback servers added with this group's tokens. Default 1. */
  adminId?: number;
}

export interface FakeVkError {
  error_code: number;
  error_msg: string;
  /** Extra error fields, e.g. captcha_sid / captcha_img for 14. */
  [extra: string]: unknown;
}

export interface RecordedVkCall {
  /** As it appeared in the path. */
  method: string;
  /** Every parameter as received (strings), from query string and body, access_token and v included. */
  params: Record<string, string>;
  /** From access_token or Authorization: Bearer; null when absent. */
  token: string | null;
  httpMethod: string;
  contentType: string | null;
}

export interface FakeSentMessage {
  groupId: number;
  peerId: number;
  message: string;
  randomId: number;
  /** `keyboard` parsed from its JSON string; null when none was sent. */
  keyboard: unknown;
  /** `payload` parsed when it is JSON, the raw string otherwise; null when none was sent. */
  payload: unknown;
  messageId: number;
  conversationMessageId: number;
}

/** A messages.setActivity call VK accepted («печатает…»). */
export interface FakeActivity {
  groupId: number;
  peerId: number;
  type: string;
  /** How many messages had been sent (sentMessages.length) when it came: what it preceded. */
  sentBefore: number;
}

export type FakeCallbackServerStatus = 'unconfigured' | 'failed' | 'wait' | 'ok';

export interface FakeCallbackServer {
  groupId: number;
  id: number;
  title: string;
  url: string;
  secret_key: string;
  status: FakeCallbackServerStatus;
  creator_id: number;
  api_version: string;
  events: Record<string, 0 | 1>;
}

export interface FakeEventAnswer {
  groupId: number;
  eventId: string;
  userId: number;
  peerId: number;
  /** `event_data` parsed from JSON; null when absent. */
  eventData: unknown;
}

export interface FakeVkSettings {
  /** groups.getById in the 5.199 `{groups, profiles}` shape, or the bare array older versions returned. */
  getByIdShape: 'groups' | 'legacy';
  /** The schema allows 9000 characters; libraries split at 4096. The real limit is unconfirmed. */
  maxMessageLength: number;
  /** sendMessageEventAnswer only for events registered with addMessageEvent and younger than eventTtlMs. */
  requireKnownEventIds: boolean;
  eventTtlMs: number;
  /**
   * Like VK: after addCallbackServer (and an editCallbackServer that changes the URL), POST a confirmation
   * request to the server's URL and set its status from the answer. VK does this on its own for servers added
   * through the API: SevereCloud/vksdk's callback.AutoSetting only fetches the code, adds the server ("web
   * server must be running") and sets its events, with no call that would trigger a confirmation. Off by
   * default here only because most tests have no server to answer.
   */
  autoConfirm: boolean;
  /**
   * VK's Callback API guide (dev.vk.com, Callback API, "getting started"): the confirmation string changes
   * from time to time, and adding a server or editing one needs the new string from
   * groups.getCallbackConfirmationCode. This fake changes it after every add and edit (once VK's own
   * confirmation of that change is done), so a code kept from an earlier registration is always stale.
   */
  rotateConfirmationCode: boolean;
}

export interface ConfirmationResult {
  status: FakeCallbackServerStatus;
  httpStatus: number | null;
  body: string | null;
}

export interface FakeVk {
  /** Base URL including /method, to be used as VK_API_BASE_URL, e.g. http://127.0.0.1:54321/method. */
  url: string;
  calls: RecordedVkCall[];
  /** Every message VK accepted (a repeated random_id is recorded once), oldest first. */
  sentMessages: FakeSentMessage[];
  /** Live state: tests may change `status` to simulate VK's view of a server. */
  callbackServers: FakeCallbackServer[];
  eventAnswers: FakeEventAnswer[];
  /** messages.setActivity calls, oldest first. */
  activities: FakeActivity[];
  settings: FakeVkSettings;
  addGroup(spec: FakeVkGroupSpec): void;
  /** Another token for a known group, e.g. one without some rights. */
  addToken(token: string, groupId: number, rights?: FakeVkRights): void;
  /** VK changes the code over time; the next confirmation uses the new one. */
  setConfirmationCode(groupId: number, code: string): void;
  /** The code VK expects right now. */
  confirmationCodeOf(groupId: number): string;
  /** The user wrote to or allowed messages from the community (message_allow). */
  allowMessages(groupId: number, peerId: number): void;
  /** The user denied messages (message_deny): messages.send to them gets 901. */
  denyMessages(groupId: number, peerId: number): void;
  /** Makes a callback-button press answerable, as if VK had just delivered its message_event. */
  addMessageEvent(event: { groupId: number; eventId: string; userId: number; peerId: number }): void;
  /** POSTs {type: "confirmation"} to the server URL like VK and records the outcome in its status. */
  confirmServer(groupId: number, serverId: number): Promise<ConfirmationResult>;
  /** Resolves once confirmations started by autoConfirm are done. */
  idle(): Promise<void>;
  /** The next `times` calls of `method` ('*' for any) answer this error envelope. */
  failNext(method: string, error: FakeVkError, times?: number): void;
  /** The next `times` calls of `method` get an nginx page with this HTTP status instead of an envelope. */
  failNextHttp(method: string, status: number, times?: number): void;
  /** The next `times` calls of `method` never answer (until reset/close): a hang past the client timeout. */
  hangNext(method: string, times?: number): void;
  /**
   * VK's CDN for voice messages (an audio_message's link_ogg / link_mp3): `cdnUrl` is its base
   * (http://127.0.0.1:<port>/audio), addVoiceFile serves bytes at `<cdnUrl>/<name>` and returns that URL,
   * and every GET of it is recorded in `voiceDownloads`.
   */
  cdnUrl: string;
  addVoiceFile(name: string, bytes: Uint8Array): string;
  voiceDownloads: string[];
  /** Forgets groups, tokens, servers, messages, events, failures, calls, settings and voice files. */
  reset(): void;
  close(): Promise<void>;
}
