// Shared set-up of the messenger tests: the app wired to a fake Telegram, a user with an agent and a bot.
import { startFakeTelegram, type FakeTelegram } from '../fakes/telegram';
import { call, registerUser, startTestApp, type TestApp } from './app';
import { createTestDatabase, type TestDatabase } from './database';

export const BOT = { id: 7012345678, username: 'salon_helper_bot', first_name: 'Salon Helper' };
export const BOT_TOKEN = `${BOT.id}:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw1`;
export const OPERATOR = { id: 40911233, first_name: 'Анна', username: 'anna_k' };
export const CHANNEL = { id: -1002233445566, username: 'salon_len_news', title: 'Салон «Лён» — записи' };

/** A port nobody listens on right now, so PUBLIC_BASE_URL can name the app's real address before it starts. */
export function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

export function messengerEnv(telegram: FakeTelegram, port: number): Record<string, string> {
  return {
    TELEGRAM_API_BASE_URL: telegram.url,
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    OUTBOX_POLL_INTERVAL_MS: '50',
    OUTBOX_RETRY_BASE_MS: '100',
    TELEGRAM_TIMEOUT_MS: '2000',
  };
}

export interface MessengerWorld {
  app: TestApp;
  telegram: FakeTelegram;
  port: number;
  database: TestDatabase;
  /** (Re)starts the app on the world's database and port; stop the previous one first. */
  start(env?: Record<string, string>): Promise<TestApp>;
  close(): Promise<void>;
}

export async function startMessengerWorld(): Promise<MessengerWorld> {
  const telegram = await startFakeTelegram();
  const port = freePort();
  const world: MessengerWorld = {
    app: undefined as unknown as TestApp,
    telegram,
    port,
    database: await createTestDatabase(),
    async start(env = {}) {
      world.app = await startTestApp({ env: { ...messengerEnv(telegram, port), ...env }, database: world.database });
      return world.app;
    },
    async close() {
      await world.app?.close();
      await world.database.drop();
      await telegram.close();
    },
  };
  await world.start();
  return world;
}

/** The fake knows the bot, the operator's private chat and the channel (bot not a member yet). */
export function seedTelegram(telegram: FakeTelegram) {
  telegram.settings.webhookRequiresHttps = false;
  telegram.addBot(BOT_TOKEN, BOT);
  telegram.addChat({ id: OPERATOR.id, type: 'private', first_name: OPERATOR.first_name, username: OPERATOR.username });
  telegram.addChat({ id: CHANNEL.id, type: 'channel', title: CHANNEL.title, username: CHANNEL.username });
}

export async function createAgent(base: string, token: string, name = 'Салон «Лён»', type = 'service') {
  const res = await call(base, 'POST', '/api/agents', { token, body: { name, type } });
  if (res.status !== 201) throw new Error(`agent creation failed: ${res.status} ${res.text}`);
  return res.body as { id: string; name: string };
}

/** A user with an agent whose messenger is configured (operator chat, and the channel when asked). */
export async function configuredAgent(base: string, options: { channel?: boolean } = {}) {
  const user = await registerUser(base);
  const agent = await createAgent(base, user.token);
  const body: Record<string, unknown> = { botToken: BOT_TOKEN, userId: OPERATOR.id };
  if (options.channel) body.channelId = `@${CHANNEL.username}`;
  const res = await call(base, 'PUT', `/api/v1/messenger/${agent.id}/settings`, { token: user.token, body });
  if (res.status !== 200) throw new Error(`settings failed: ${res.status} ${res.text}`);
  return { user, agent, settings: res.body };
}

/** A text the operator writes to the bot in their private chat, as a Telegram update; `extra` adds e.g. reply_to_message. */
export function operatorText(text: string, extra: Record<string, unknown> = {}) {
  return {
    message: {
      message_id: Math.floor(Math.random() * 1e6),
      date: Math.floor(Date.now() / 1000),
      from: { id: OPERATOR.id, is_bot: false, first_name: OPERATOR.first_name, username: OPERATOR.username },
      chat: { id: OPERATOR.id, type: 'private', first_name: OPERATOR.first_name },
      text,
      ...extra,
    },
  };
}

export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}
