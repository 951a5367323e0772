// Drives the VK callback endpoint the way VK does, and reads what the app sent back through the fake VK.
import { expect } from 'bun:test';
import type { FakeSentMessage, FakeVk } from '../fakes/vk';
import type { TestApp } from './app';
import { waitFor } from './messenger';

export const GROUP = 218800412;
export const TOKEN = 'vk1.a.community-token-0123456789abcdefghij';
export const SECRET = 's3cr3tKey42';
export const CODE = '5d2c1e8a';
export const CLIENT = 40911233;
/** How long an answer or an event's handling may take before a test fails: only a failing wait runs to it. */
const WAIT_MS = 15_000;

type Button = { action: { type: string; label: string; payload: string } };
export const buttonsOf = (m: FakeSentMessage) => ((m.keyboard as { buttons: Button[][] } | null)?.buttons ?? []).flat();
export const actionsOf = (m: FakeSentMessage) => buttonsOf(m).map((b) => JSON.parse(b.action.payload).action as string);

/** The payload of the button whose label contains `label`. */
export function payloadOf(m: FakeSentMessage, label: string): Record<string, unknown> {
  const button = buttonsOf(m).find((b) => b.action.label.includes(label));
  if (!button) throw new Error(`no button "${label}" in ${JSON.stringify(buttonsOf(m).map((b) => b.action.label))}`);
  return JSON.parse(button.action.payload) as Record<string, unknown>;
}

/** The app and the fake are read when used: tests start them in beforeAll, after this is built. */
export function createSocialDriver(getApp: () => TestApp, getVk: () => FakeVk) {
  let counter = 0;
  const driver = {
    post(agentId: string, body: unknown) {
      return fetch(`${getApp().url}/api/v1/social/webhook/${agentId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    },

    /** A client's message as VK posts it (API ≥ 5.103), or in the older flat shape. */
    messageNew(text: string, options: { flat?: boolean; peerId?: number; secret?: string | null; payload?: unknown; attachments?: unknown[] } = {}) {
      const peerId = options.peerId ?? CLIENT;
      counter += 1;
      const message: Record<string, unknown> = {
        id: 3000 + counter,
        date: Math.floor(Date.now() / 1000),
        peer_id: peerId,
        from_id: peerId,
        text,
        conversation_message_id: 500 + counter,
        out: 0,
        attachments: options.attachments ?? [],
        fwd_messages: [],
      };
      if (options.payload !== undefined) message.payload = JSON.stringify(options.payload);
      const body: Record<string, unknown> = {
        type: 'message_new',
        event_id: `evt-${Date.now()}-${counter}-${Math.random().toString(36).slice(2, 8)}`,
        v: '5.199',
        group_id: GROUP,
        object: options.flat ? message : { message, client_info: { button_actions: ['text', 'callback'], keyboard: true, inline_keyboard: true } },
      };
      if (options.secret !== null) body.secret = options.secret ?? SECRET;
      return body;
    },

    /** A callback-button press, made answerable in the fake first. */
    messageEvent(payload: Record<string, unknown>, peerId = CLIENT) {
      counter += 1;
      const eventId = `btn-${counter}-${Math.random().toString(36).slice(2, 8)}`;
      getVk().addMessageEvent({ groupId: GROUP, eventId, userId: peerId, peerId });
      return {
        type: 'message_event',
        event_id: `evt-btn-${Date.now()}-${counter}`,
        v: '5.199',
        group_id: GROUP,
        secret: SECRET,
        object: { user_id: peerId, peer_id: peerId, event_id: eventId, payload, conversation_message_id: 600 + counter },
      };
    },

    /** A client allowing (message_allow, with the widget's `key`) or denying (message_deny) the community's messages. */
    consent(allowed: boolean, peerId = CLIENT) {
      counter += 1;
      return {
        type: allowed ? 'message_allow' : 'message_deny',
        event_id: `evt-consent-${Date.now()}-${counter}-${Math.random().toString(36).slice(2, 8)}`,
        v: '5.199',
        group_id: GROUP,
        secret: SECRET,
        object: allowed ? { user_id: peerId, key: '' } : { user_id: peerId },
      };
    },

    /** Posts an event and waits for `count` messages to that peer. */
    async sendAndWait(agentId: string, body: unknown, count = 1, peerId = CLIENT): Promise<FakeSentMessage[]> {
      const vk = getVk();
      const before = vk.sentMessages.filter((m) => m.peerId === peerId).length;
      const res = await driver.post(agentId, body);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('ok');
      await waitFor(() => vk.sentMessages.filter((m) => m.peerId === peerId).length >= before + count, WAIT_MS, 'the answer in VK');
      return vk.sentMessages.filter((m) => m.peerId === peerId).slice(before);
    },

    /** What handling the event did, once it is done. */
    async processed(agentId: string, eventId: string): Promise<string | null> {
      return waitFor(
        async () => {
          const [row] = await getApp().sql<{ outcome: string | null; processed_at: unknown }>(
            'select outcome, processed_at from social_events where agent_id = $1 and event_id = $2',
            [agentId, eventId],
          );
          return row?.processed_at ? (row.outcome ?? 'none') : null;
        },
        WAIT_MS,
        'the event to be handled',
      );
    },
  };
  return driver;
}
