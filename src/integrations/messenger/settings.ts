// Messenger settings of an agent: the bot token (checked with getMe, stored sealed, read back masked),
// the chat that receives notifications, the optional channel, and the webhook registered on save.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { isUuid } from '../../db/uuid';
import { maskSecret, SecretBoxError, type SecretBox } from '../../crypto/secret-box';
import type { Database } from '../../db/client';
import { messengerSettings } from './tables';
import { AppError } from '../../http/errors';
import { messengerMessages } from './texts';
import type { Logger } from '../../logger';
import { canPostMessages, isValidBotTokenFormat, TelegramApiError, TelegramNetworkError, type TelegramClient } from './client';

/** Updates the service acts on: operators' messages and posts in a channel used as the operators' room. */
export const WEBHOOK_ALLOWED_UPDATES = ['message', 'channel_post'] as const;

export interface MessengerSettingsInput {
  /** Omitted: keep the stored token (reads never show it, so a form cannot send it back). */
  botToken?: string;
  userId: string;
  channelId: string | null;
}

export interface MessengerSettingsView {
  configured: boolean;
  /** Masked; null when no token is stored. */
  botToken: string | null;
  botTokenSet: boolean;
  bot: { id: number; username: string | null } | null;
  userId: string | null;
  channelId: string | null;
  webhookUrl: string;
  webhook: { registered: boolean; registeredAt: string | null; error: string | null };
  /** Set when a stored secret can no longer be opened (ENCRYPTION_KEY changed): save the settings again. */
  problem: string | null;
  updatedAt: string | null;
}

export interface MessengerCredentials {
  agentId: string;
  botToken: string;
  botId: number;
  userId: string;
  channelId: string | null;
}

export interface ChannelCheck {
  ok: boolean;
  /** The bot's ChatMember status in the channel; null when it could not be learnt. */
  status: string | null;
  canPostMessages: boolean;
  reason?: string;
}

export const channelCheckReasons = {
  notConfigured: 'Мессенджер не настроен: сохраните токен бота и userId',
  noChannel: 'Канал не указан в настройках (channelId)',
  tokenRejected: 'Telegram не принял токен бота: сохраните настройки с действующим токеном',
  channelNotFound: 'Канал не найден: проверьте channelId и добавьте бота в канал администратором',
  notMember: 'Бот не состоит в канале: добавьте его администратором с правом публиковать сообщения',
  kicked: 'Бот удалён из канала: добавьте его снова администратором с правом публиковать сообщения',
  member: 'Бот состоит в канале, но не является администратором',
  restricted: 'Бот ограничен в канале и не может публиковать сообщения',
  adminWithoutPost: 'Бот — администратор канала, но без права публиковать сообщения',
  unavailable: 'Telegram недоступен или не ответил вовремя, повторите проверку позже',
  rejected: (detail: string) => `Telegram отклонил проверку: ${detail}`,
} as const;

type Row = typeof messengerSettings.$inferSelect;

export interface MessengerSettingsDeps {
  db: Database;
  box: SecretBox;
  logger: Logger;
  publicBaseUrl: string;
  telegramFor(botToken: string): TelegramClient;
}

export function messengerWebhookUrl(publicBaseUrl: string, agentId: string): string {
  return `${publicBaseUrl}/api/v1/messenger/${agentId}/webhook`;
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export function createMessengerSettings(deps: MessengerSettingsDeps) {
  const { db, box, logger } = deps;

  async function row(agentId: string): Promise<Row | undefined> {
    if (!isUuid(agentId)) return undefined;
    const [found] = await db.select().from(messengerSettings).where(eq(messengerSettings.agentId, agentId)).limit(1);
    return found;
  }

  function view(agentId: string, r: Row | undefined): MessengerSettingsView {
    const webhookUrl = messengerWebhookUrl(deps.publicBaseUrl, agentId);
    if (!r) {
      return {
        configured: false,
        botToken: null,
        botTokenSet: false,
        bot: null,
        userId: null,
        channelId: null,
        webhookUrl,
        webhook: { registered: false, registeredAt: null, error: null },
        problem: null,
        updatedAt: null,
      };
    }
    let problem: string | null = null;
    try {
      box.open(r.botTokenSealed, 'botToken');
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      problem = `${error.message}. Сохраните настройки мессенджера с токеном бота заново`;
    }
    return {
      configured: true,
      // The mask never depends on the token, so it is shown without opening anything.
      botToken: maskSecret(r.botTokenSealed, 0),
      botTokenSet: true,
      bot: { id: r.botId, username: r.botUsername },
      userId: r.userId,
      channelId: r.channelId,
      webhookUrl: r.webhookUrl,
      webhook: {
        registered: r.webhookRegisteredAt !== null && r.webhookError === null,
        registeredAt: r.webhookRegisteredAt?.toISOString() ?? null,
        error: r.webhookError,
      },
      problem,
      updatedAt: r.updatedAt.toISOString(),
    };
  }

  function openToken(r: Row): string {
    return box.open(r.botTokenSealed, 'botToken');
  }

  return {
    async read(agentId: string): Promise<MessengerSettingsView> {
      return view(agentId, await row(agentId));
    },

    async save(agentId: string, input: MessengerSettingsInput): Promise<MessengerSettingsView> {
      const existing = await row(agentId);
      let token = input.botToken;
      if (token === undefined) {
        if (!existing) throw new AppError('invalid_request_error', messengerMessages.messengerBotTokenRequired, { param: 'botToken' });
        try {
          token = openToken(existing);
        } catch (error) {
          if (error instanceof SecretBoxError) {
            throw new AppError('invalid_request_error', `${error.message}. ${messengerMessages.messengerBotTokenRequired}`, { param: 'botToken' });
          }
          throw error;
        }
      }
      if (!isValidBotTokenFormat(token)) throw new AppError('invalid_request_error', messengerMessages.messengerBotTokenFormat, { param: 'botToken' });

      const client = deps.telegramFor(token);
      let bot;
      try {
        bot = await client.getMe();
      } catch (error) {
        if (error instanceof TelegramNetworkError || (error instanceof TelegramApiError && error.retryable)) {
          throw new AppError('upstream_error', messengerMessages.messengerTelegramUnavailable);
        }
        if (error instanceof TelegramApiError) {
          throw new AppError('invalid_request_error', messengerMessages.messengerBotTokenRejected);
        }
        throw error;
      }

      // One secret per agent for its lifetime: re-registering with the same one leaves no moment in
      // which Telegram holds a secret the database does not know.
      let secret: string | undefined;
      if (existing) {
        try {
          secret = box.open(existing.webhookSecretSealed, 'webhookSecret');
        } catch (error) {
          if (!(error instanceof SecretBoxError)) throw error;
        }
      }
      secret ??= randomBytes(32).toString('base64url');

      const webhookUrl = messengerWebhookUrl(deps.publicBaseUrl, agentId);
      const values = {
        botTokenSealed: box.seal(token),
        botId: bot.id,
        botUsername: bot.username ?? null,
        userId: input.userId,
        channelId: input.channelId,
        webhookSecretSealed: box.seal(secret),
        webhookUrl,
        updatedAt: new Date(),
      };
      // Stored before setWebhook, so the first update Telegram sends already finds its secret.
      await db
        .insert(messengerSettings)
        .values({ agentId, ...values })
        .onConflictDoUpdate({ target: messengerSettings.agentId, set: values });

      let registeredAt: Date | null = null;
      let webhookError: string | null = null;
      try {
        await client.setWebhook({ url: webhookUrl, secret_token: secret, allowed_updates: [...WEBHOOK_ALLOWED_UPDATES] });
        registeredAt = new Date();
      } catch (error) {
        if (error instanceof TelegramApiError) webhookError = error.description;
        else if (error instanceof TelegramNetworkError) webhookError = error.message;
        else throw error;
        logger.warn('messenger webhook registration failed', { agentId, error: webhookError });
      }
      await db.update(messengerSettings).set({ webhookRegisteredAt: registeredAt, webhookError }).where(eq(messengerSettings.agentId, agentId));

      // A different bot now serves the agent: the old one should stop calling our webhook.
      if (existing && existing.botId !== bot.id) {
        try {
          await deps.telegramFor(openToken(existing)).deleteWebhook();
        } catch {
          // Best effort: the old bot's updates would be refused by the secret check anyway.
        }
      }
      return view(agentId, await row(agentId));
    },

    /** The opened settings for senders; null when not configured. Throws SecretBoxError when unreadable. */
    async credentials(agentId: string): Promise<MessengerCredentials | null> {
      const r = await row(agentId);
      if (!r) return null;
      return { agentId, botToken: openToken(r), botId: r.botId, userId: r.userId, channelId: r.channelId };
    },

    /** Where notifications go: the user chat, then the channel when one is set. Nothing is opened. */
    async recipients(executor: Pick<Database, 'select'>, agentId: string): Promise<{ userId: string; channelId: string | null } | null> {
      const [r] = await executor
        .select({ userId: messengerSettings.userId, channelId: messengerSettings.channelId })
        .from(messengerSettings)
        .where(eq(messengerSettings.agentId, agentId))
        .limit(1);
      return r ?? null;
    },

    /**
     * Telegram upgraded the group `from` to the supergroup `to` (a sendMessage answered migrate_to_chat_id):
     * whichever of the stored chats named the old group names the new one from now on.
     */
    async migrateChat(agentId: string, from: string, to: string): Promise<void> {
      if (!isUuid(agentId)) return;
      await db
        .update(messengerSettings)
        .set({ userId: to, updatedAt: new Date() })
        .where(and(eq(messengerSettings.agentId, agentId), eq(messengerSettings.userId, from)));
      await db
        .update(messengerSettings)
        .set({ channelId: to, updatedAt: new Date() })
        .where(and(eq(messengerSettings.agentId, agentId), eq(messengerSettings.channelId, from)));
      logger.info('messenger chat moved to its supergroup', { agentId, from, to });
    },

    /** 'unknown' when the agent has no messenger; otherwise whether the header carries its secret. */
    async verifyWebhookSecret(agentId: string, presented: string | null): Promise<'unknown' | 'ok' | 'wrong'> {
      const r = await row(agentId);
      if (!r) return 'unknown';
      if (!presented) return 'wrong';
      let secret: string;
      try {
        secret = box.open(r.webhookSecretSealed, 'webhookSecret');
      } catch (error) {
        if (error instanceof SecretBoxError) return 'wrong';
        throw error;
      }
      return timingSafeEqual(digest(secret), digest(presented)) ? 'ok' : 'wrong';
    },

    /** getMe, then getChatMember(channel, bot): ok only for an administrator allowed to post. */
    async checkChannel(agentId: string): Promise<ChannelCheck> {
      const no = (reason: string, status: string | null = null): ChannelCheck => ({
        ok: false,
        status,
        canPostMessages: false,
        reason,
      });
      const r = await row(agentId);
      if (!r) return no(channelCheckReasons.notConfigured);
      if (!r.channelId) return no(channelCheckReasons.noChannel);
      let token: string;
      try {
        token = openToken(r);
      } catch (error) {
        if (error instanceof SecretBoxError) return no(`${error.message}. Сохраните настройки мессенджера заново`);
        throw error;
      }
      const client = deps.telegramFor(token);
      const chatId = /^-?\d+$/.test(r.channelId) ? Number(r.channelId) : r.channelId;
      try {
        const bot = await client.getMe();
        const member = await client.getChatMember(chatId, bot.id);
        if (canPostMessages(member)) return { ok: true, status: member.status, canPostMessages: true };
        const reason =
          member.status === 'administrator'
            ? channelCheckReasons.adminWithoutPost
            : member.status === 'member'
              ? channelCheckReasons.member
              : member.status === 'restricted'
                ? channelCheckReasons.restricted
                : member.status === 'kicked'
                  ? channelCheckReasons.kicked
                  : channelCheckReasons.notMember;
        return no(reason, member.status);
      } catch (error) {
        if (error instanceof TelegramNetworkError) return no(channelCheckReasons.unavailable);
        if (!(error instanceof TelegramApiError)) throw error;
        if (error.retryable) return no(channelCheckReasons.unavailable);
        if (error.method === 'getMe' || error.errorCode === 401) return no(channelCheckReasons.tokenRejected);
        const text = error.description.toLowerCase();
        if (text.includes('chat not found')) return no(channelCheckReasons.channelNotFound);
        if (text.includes('not a member') || text.includes('inaccessible') || text.includes('user not found') || error.errorCode === 403) {
          return no(channelCheckReasons.notMember);
        }
        return no(channelCheckReasons.rejected(error.description));
      }
    },
  };
}

export type MessengerSettings = ReturnType<typeof createMessengerSettings>;
