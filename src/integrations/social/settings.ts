// An agent's VK community: settings (token and secret sealed), the connection check, the confirmation
// code, and registering our webhook as the community's callback server.
//
// VK changes the confirmation code from time to time, and adding or editing a server needs the current one
// (Callback API guide). So the code is read from VK before every registration, and a `confirmation` event is
// answered with a copy at most a minute old; the stored code is only the fallback for when VK cannot be asked.
import { createHash, timingSafeEqual } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { maskSecret, SecretBoxError, type SecretBox } from '../../crypto/secret-box';
import type { Database, Executor } from '../../db/client';
import { socialSettings } from './tables';
import { isUuid } from '../../db/uuid';
import { AppError } from '../../http/errors';
import { socialMessages } from './texts';
import type { Logger } from '../../logger';
import { VK_API_VERSION, VkApiError, VkNetworkError, type VkClient } from './client';
import type { SocialConnectionView, SocialSettingsInput, SocialSettingsView } from './settings-input';

/** The access token's first characters shown on reads (the spec: first 10, then a mask). */
const TOKEN_VISIBLE_CHARS = 10;
const CALLBACK_SERVER_TITLE = 'Conduit';
/** How long a code read from VK (or VK's failure to give one) is reused before VK is asked again. */
const CONFIRMATION_CODE_CACHE_MS = 60_000;
/**
 * How long the outcome of trying the saved token is shown before a read asks VK again: a success for a
 * few minutes, a failure (VK away, token revoked) for one, so a fixed outage shows soon.
 */
const CONNECTION_OK_MS = 5 * 60_000;
const CONNECTION_FAILED_MS = 60_000;

interface ConnectionOutcome {
  ok: boolean;
  groupName?: string;
  reason?: string;
}

export function socialWebhookUrl(publicBaseUrl: string, agentId: string): string {
  return `${publicBaseUrl}/api/v1/social/webhook/${agentId}`;
}

export {
  checkConnectionInput,
  SECRET_KEY_MIN,
  socialSettingsInput,
  socialSettingsView,
  type SocialSettingsInput,
  type SocialSettingsView,
} from './settings-input';

export interface OpenSocialSettings {
  agentId: string;
  groupId: number;
  accessToken: string;
  secretKey: string;
  confirmationCode: string | null;
  callbackServerId: number | null;
}

type Row = typeof socialSettings.$inferSelect;

export interface SocialSettingsDeps {
  db: Database;
  box: SecretBox;
  logger: Logger;
  publicBaseUrl: string;
  vkFor(accessToken: string): VkClient;
}

/** A VK failure as the owner should read it; the integration endpoints answer 400 for what they must fix. */
export function vkFailure(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof VkNetworkError) return new AppError('upstream_error', socialMessages.vkUnavailable, { cause: error });
  if (error instanceof VkApiError) {
    if (error.kind === 'auth') return new AppError('invalid_request_error', socialMessages.vkTokenRejected, { cause: error });
    if (error.kind === 'permission_denied') return new AppError('invalid_request_error', socialMessages.vkNoRights, { cause: error });
    if (error.kind === 'limit_reached') return new AppError('invalid_request_error', socialMessages.vkServersLimit, { cause: error });
    if (error.kind === 'invalid_request' || error.kind === 'not_found') {
      return new AppError('invalid_request_error', socialMessages.vkRejected(error.errorMsg.slice(0, 200)), { cause: error });
    }
    return new AppError('upstream_error', socialMessages.vkUnavailable, { cause: error });
  }
  return new AppError('internal_error', undefined, { cause: error });
}

export function createSocialSettings(deps: SocialSettingsDeps) {
  const { db, box, logger } = deps;
  /**
   * Per agent and community: the code VK gave last (null: VK could not be asked) and when. Bounded by the
   * agents with a community; the public confirmation endpoint asks VK at most once a minute per agent.
   */
  const liveCodes = new Map<string, { code: string | null; at: number }>();
  const codeKey = (s: Pick<OpenSocialSettings, 'agentId' | 'groupId'>) => `${s.agentId}:${s.groupId}`;

  /** Reads in flight, so a burst of confirmation events makes one VK call. */
  const reading = new Map<string, Promise<string>>();

  /** The code VK gives now; kept in the database as the fallback and in memory for a minute. */
  function readCodeFromVk(s: OpenSocialSettings): Promise<string> {
    const key = codeKey(s);
    const inFlight = reading.get(key);
    if (inFlight) return inFlight;
    const read = (async () => {
      const code = await deps.vkFor(s.accessToken).groupsGetCallbackConfirmationCode(s.groupId);
      liveCodes.set(key, { code, at: Date.now() });
      if (code !== s.confirmationCode) {
        await db
          .update(socialSettings)
          .set({ confirmationCode: code, updatedAt: new Date() })
          .where(and(eq(socialSettings.agentId, s.agentId), eq(socialSettings.groupId, s.groupId)));
      }
      return code;
    })().finally(() => reading.delete(key));
    reading.set(key, read);
    return read;
  }

  /** The code from the last minute, or undefined when VK has to be asked. */
  function recentCode(s: OpenSocialSettings): { code: string | null } | undefined {
    const cached = liveCodes.get(codeKey(s));
    if (!cached || Date.now() - cached.at >= CONFIRMATION_CODE_CACHE_MS) return undefined;
    return { code: cached.code ?? s.confirmationCode };
  }

  function open(row: Row): OpenSocialSettings {
    try {
      return {
        agentId: row.agentId,
        groupId: row.groupId,
        accessToken: box.open(row.accessTokenSealed, 'accessToken'),
        secretKey: box.open(row.secretKeySealed, 'secretKey'),
        confirmationCode: row.confirmationCode,
        callbackServerId: row.callbackServerId,
      };
    } catch (error) {
      if (error instanceof SecretBoxError) throw new AppError('invalid_request_error', `${error.message}. Сохраните настройки сообщества заново`);
      throw error;
    }
  }

  /**
   * The last outcome of trying each agent's saved token, for its (group, token): a status says connected
   * only after VK answered a check with it. Kept per instance; another instance checks for itself.
   */
  const connections = new Map<string, { key: string; outcome: ConnectionOutcome; at: number }>();
  const connectionKey = (groupId: number, token: string) => `${groupId}:${createHash('sha256').update(token).digest('base64url')}`;

  /** Whether the token opens the community: `{ok, groupName}`, or ok false with a Russian reason. */
  async function probe(groupId: number, accessToken: string): Promise<ConnectionOutcome> {
    try {
      // Asked without an id, VK names the token's own community: any token could read a public group by id.
      const group = await deps.vkFor(accessToken).groupsGetById();
      if (!group || group.id !== groupId) return { ok: false, reason: socialMessages.vkGroupMismatch };
      return { ok: true, groupName: group.name };
    } catch (error) {
      const failure = vkFailure(error);
      logger.info('vk connection check failed', { groupId, error });
      return { ok: false, reason: failure.message };
    }
  }

  function remember(agentId: string, groupId: number, token: string, outcome: ConnectionOutcome): void {
    connections.set(agentId, { key: connectionKey(groupId, token), outcome, at: Date.now() });
  }

  /** The saved token's status: the remembered outcome while fresh, else VK is asked now. */
  async function connectionOf(agentId: string, groupId: number, token: string): Promise<SocialConnectionView> {
    let known = connections.get(agentId);
    const fresh = known && known.key === connectionKey(groupId, token) && Date.now() - known.at < (known.outcome.ok ? CONNECTION_OK_MS : CONNECTION_FAILED_MS);
    if (!fresh) {
      remember(agentId, groupId, token, await probe(groupId, token));
      known = connections.get(agentId)!;
    }
    const { outcome, at } = known!;
    return {
      status: outcome.ok ? 'connected' : 'failed',
      groupName: outcome.groupName ?? null,
      reason: outcome.reason ?? null,
      checkedAt: new Date(at).toISOString(),
    };
  }

  const UNCHECKED: SocialConnectionView = { status: 'unchecked', groupName: null, reason: null, checkedAt: null };

  function view(agentId: string, row: Row | undefined, token: string | null, connection: SocialConnectionView = UNCHECKED): SocialSettingsView {
    return {
      connection,
      configured: Boolean(row),
      groupId: row?.groupId ?? null,
      accessToken: token === null ? null : maskSecret(token, TOKEN_VISIBLE_CHARS),
      secretKeySet: Boolean(row),
      confirmationCode: row?.confirmationCode ?? null,
      webhookUrl: socialWebhookUrl(deps.publicBaseUrl, agentId),
      callbackServerId: row?.callbackServerId ?? null,
      updatedAt: row?.updatedAt.toISOString() ?? null,
    };
  }

  /** `executor`: the caller's transaction when there is one (PGlite has one connection: never wait on another). */
  async function row(agentId: string, executor: Executor = db): Promise<Row | undefined> {
    if (!isUuid(agentId)) return undefined;
    const [found] = await executor.select().from(socialSettings).where(eq(socialSettings.agentId, agentId));
    return found;
  }

  async function configured(agentId: string): Promise<OpenSocialSettings> {
    const found = await row(agentId);
    if (!found) throw new AppError('invalid_request_error', socialMessages.socialNotConfigured);
    return open(found);
  }

  return {
    async read(agentId: string): Promise<SocialSettingsView> {
      const found = await row(agentId);
      if (!found) return view(agentId, undefined, null);
      const token = open(found).accessToken;
      return view(agentId, found, token, await connectionOf(agentId, found.groupId, token));
    },

    /** Opened settings, or null when the agent has no community. */
    async load(agentId: string, executor?: Executor): Promise<OpenSocialSettings | null> {
      const found = await row(agentId, executor);
      return found ? open(found) : null;
    },

    configured,

    /** Secrets left out keep their stored values; a first save needs both. */
    async save(agentId: string, input: SocialSettingsInput): Promise<SocialSettingsView> {
      const existing = await row(agentId);
      const current = existing ? open(existing) : null;
      const token = input.accessToken ?? current?.accessToken;
      const secretKey = input.secretKey ?? current?.secretKey;
      if (!token || !secretKey) {
        throw new AppError('invalid_request_error', socialMessages.socialSecretsRequired, { param: token ? 'secretKey' : 'accessToken' });
      }
      const sameGroup = current?.groupId === input.groupId;
      const values = {
        groupId: input.groupId,
        accessTokenSealed: box.seal(token),
        secretKeySealed: box.seal(secretKey),
        // Another community has another code, and another server list.
        confirmationCode: input.confirmationCode || (sameGroup ? (current?.confirmationCode ?? null) : null),
        callbackServerId: sameGroup ? (current?.callbackServerId ?? null) : null,
        updatedAt: new Date(),
      };
      const [saved] = await db
        .insert(socialSettings)
        .values({ agentId, ...values })
        .onConflictDoUpdate({ target: socialSettings.agentId, set: values })
        .returning();
      // Saved is not connected: the token is tried at once, and the answer says what VK said.
      remember(agentId, input.groupId, token, await probe(input.groupId, token));
      return view(agentId, saved, token, await connectionOf(agentId, input.groupId, token));
    },

    /** Whether a typed token opens the community: `{ok, groupName}`, or ok false with a Russian reason. */
    async checkConnection(input: { groupId: number; accessToken: string }): Promise<ConnectionOutcome> {
      return probe(input.groupId, input.accessToken);
    },

    /**
     * The same check with the agent's saved (sealed) token, so the owner need not type it again; the
     * outcome becomes the status the settings show. A `groupId` other than the saved one is checked too,
     * but changes no status.
     */
    async checkSaved(agentId: string, groupId?: number): Promise<ConnectionOutcome> {
      const s = await configured(agentId);
      const target = groupId ?? s.groupId;
      const outcome = await probe(target, s.accessToken);
      if (target === s.groupId) remember(agentId, s.groupId, s.accessToken, outcome);
      return outcome;
    },

    /** The community's confirmation code for the dashboard: as VK gives it now, else the stored one. */
    async confirmationCode(agentId: string): Promise<string> {
      const s = await configured(agentId);
      const recent = recentCode(s);
      if (recent?.code) return recent.code;
      try {
        return await readCodeFromVk(s);
      } catch (error) {
        if (s.confirmationCode) {
          logger.warn('vk confirmation code could not be read; showing the stored one', { agentId, error });
          return s.confirmationCode;
        }
        throw vkFailure(error);
      }
    },

    /**
     * The code to answer VK's `confirmation` event with: re-read from VK at most once a minute, the stored
     * one when VK cannot be asked (that failure is remembered for the minute too); null when there is none.
     */
    async codeForConfirmation(s: OpenSocialSettings): Promise<string | null> {
      const recent = recentCode(s);
      if (recent) return recent.code;
      try {
        return await readCodeFromVk(s);
      } catch (error) {
        logger.warn('vk confirmation code could not be read; answering the stored one', { agentId: s.agentId, error });
        liveCodes.set(codeKey(s), { code: null, at: Date.now() });
        return s.confirmationCode;
      }
    },

    /** The stored code only, for the public GET of the confirmation endpoint (no VK call from an unauthenticated GET). */
    async storedConfirmationCode(agentId: string): Promise<string | null> {
      return (await row(agentId))?.confirmationCode ?? null;
    },

    /**
     * Adds our webhook to the community as a callback server, or updates the one already there, and
     * subscribes it to the events the assistant handles.
     */
    async registerWebhook(agentId: string): Promise<{ serverId: number; url: string; status: string }> {
      const s = await configured(agentId);
      const vk = deps.vkFor(s.accessToken);
      const url = socialWebhookUrl(deps.publicBaseUrl, agentId);
      try {
        // VK confirms an added (or re-addressed) server at once, with the code current at that moment: the
        // one read just now, which the confirmation event is then answered with.
        await readCodeFromVk(s);
        const servers = await vk.groupsGetCallbackServers(s.groupId);
        let ours = servers.find((x) => x.id === s.callbackServerId) ?? servers.find((x) => x.url === url);
        const params = { groupId: s.groupId, url, title: CALLBACK_SERVER_TITLE, secretKey: s.secretKey };
        if (ours?.status === 'failed') {
          // VK gave up on it (an answer with an old code, or an outage): a new server is confirmed afresh,
          // as SevereCloud/vksdk's callback.AutoSetting also does.
          await vk.groupsDeleteCallbackServer({ groupId: s.groupId, serverId: ours.id });
          ours = undefined;
        }
        let serverId: number;
        if (ours) {
          serverId = ours.id;
          await vk.groupsEditCallbackServer({ ...params, serverId });
        } else {
          serverId = await vk.groupsAddCallbackServer(params);
        }
        await vk.groupsSetCallbackSettings({
          groupId: s.groupId,
          serverId,
          apiVersion: VK_API_VERSION,
          message_new: 1,
          message_event: 1,
          message_allow: 1,
          message_deny: 1,
        });
        await db.update(socialSettings).set({ callbackServerId: serverId, updatedAt: new Date() }).where(eq(socialSettings.agentId, agentId));
        const [server] = await vk.groupsGetCallbackServers(s.groupId, [serverId]);
        return { serverId, url, status: server?.status ?? 'unconfigured' };
      } catch (error) {
        throw vkFailure(error);
      }
    },

    /** Constant-time comparison of an event's `secret` with the agent's key. */
    secretMatches(expected: string, presented: unknown): boolean {
      if (typeof presented !== 'string') return false;
      // Digests of equal length, so not even the key's length shows in the timing.
      const digest = (v: string) => createHash('sha256').update(v).digest();
      return timingSafeEqual(digest(expected), digest(presented));
    },
  };
}

export type SocialSettings = ReturnType<typeof createSocialSettings>;
