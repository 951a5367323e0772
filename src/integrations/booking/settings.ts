// A Service agent's YCLIENTS settings: stored with every credential sealed, read back with the
// credentials reduced to whether they are set, and saved only after YCLIENTS accepted them.
import { eq } from 'drizzle-orm';
import { type SecretBox, SecretBoxError } from '../../crypto/secret-box';
import type { Database } from '../../db/client';
import { bookingSettings } from './tables';
import { AppError } from '../../http/errors';
import type { BookingCache } from './cache';
import { bookingFailure } from './errors';
import type { YclientsClient } from './client';
import {
  clockOfMinutes,
  DEFAULT_QUIET_FROM,
  DEFAULT_QUIET_TO,
  DEFAULT_REMINDER_OFFSETS_MINUTES,
  DEFAULT_REVIEW_DELAY_MINUTES,
  DEFAULT_REVIEW_LOW_SCORE,
  DEFAULT_SLOT_CACHE_TTL_MINUTES,
  minutesOfClock,
  type BookingSettingsInput,
  type BookingSettingsView,
} from './settings-input';

export {
  bookingSettingsInput,
  bookingSettingsView,
  DEFAULT_SLOT_CACHE_TTL_MINUTES,
  MIN_SLOT_CACHE_TTL_MINUTES,
  type BookingSettingsInput,
  type BookingSettingsView,
} from './settings-input';

/** Settings opened for use: credentials in clear, for this process only. */
export interface OpenBookingSettings {
  agentId: string;
  partnerToken: string;
  login: string;
  password: string;
  companyId: number;
  syncEnabled: boolean;
  slotCacheTtlMinutes: number;
  specialistMapping: Record<string, number>;
  serviceMapping: Record<string, number>;
  reminderOffsetsMinutes: number[];
  quietFromMinutes: number;
  quietToMinutes: number;
  reviewDelayMinutes: number | null;
  reviewLowScore: number;
  reviewUrl: string | null;
  rebookDays: Record<string, number>;
  noShowMessage: boolean;
  matchClientRecords: boolean;
}

type Row = typeof bookingSettings.$inferSelect;

function view(row: Row | undefined): BookingSettingsView {
  if (!row) {
    return {
      configured: false,
      partnerTokenSet: false,
      loginSet: false,
      passwordSet: false,
      companyId: null,
      syncEnabled: false,
      slotCacheTtlMinutes: DEFAULT_SLOT_CACHE_TTL_MINUTES,
      specialistMapping: {},
      serviceMapping: {},
      reminderOffsetsMinutes: DEFAULT_REMINDER_OFFSETS_MINUTES,
      quietFrom: DEFAULT_QUIET_FROM,
      quietTo: DEFAULT_QUIET_TO,
      reviewDelayMinutes: DEFAULT_REVIEW_DELAY_MINUTES,
      reviewLowScore: DEFAULT_REVIEW_LOW_SCORE,
      reviewUrl: null,
      rebookDays: {},
      noShowMessage: false,
      matchClientRecords: false,
      lastSyncAt: null,
      updatedAt: null,
    };
  }
  return {
    configured: true,
    partnerTokenSet: true,
    loginSet: true,
    passwordSet: true,
    companyId: row.companyId,
    syncEnabled: row.syncEnabled,
    slotCacheTtlMinutes: row.slotCacheTtlMinutes,
    specialistMapping: row.specialistMapping,
    serviceMapping: row.serviceMapping,
    reminderOffsetsMinutes: row.reminderOffsetsMinutes,
    quietFrom: clockOfMinutes(row.quietFromMinutes),
    quietTo: clockOfMinutes(row.quietToMinutes),
    reviewDelayMinutes: row.reviewDelayMinutes,
    reviewLowScore: row.reviewLowScore,
    reviewUrl: row.reviewUrl,
    rebookDays: row.rebookDays,
    noShowMessage: row.noShowMessage,
    matchClientRecords: row.matchClientRecords,
    lastSyncAt: row.lastSyncAt?.toISOString() ?? null,
    updatedAt: row.updatedAt.toISOString(),
  };
}

export interface BookingSettingsDeps {
  db: Database;
  box: SecretBox;
  cache: BookingCache;
  /** A YCLIENTS client for a partner token. */
  clientFor(partnerToken: string): YclientsClient;
  /** How long a fresh administrator token is trusted. */
  userTokenTtlSeconds: number;
}

export function createBookingSettings(deps: BookingSettingsDeps) {
  const { db, box, cache } = deps;

  function openRow(row: Row): OpenBookingSettings {
    try {
      return {
        agentId: row.agentId,
        partnerToken: box.open(row.partnerTokenSealed, 'partnerToken'),
        login: box.open(row.loginSealed, 'login'),
        password: box.open(row.passwordSealed, 'password'),
        companyId: row.companyId,
        syncEnabled: row.syncEnabled,
        slotCacheTtlMinutes: row.slotCacheTtlMinutes,
        specialistMapping: row.specialistMapping,
        serviceMapping: row.serviceMapping,
        reminderOffsetsMinutes: row.reminderOffsetsMinutes,
        quietFromMinutes: row.quietFromMinutes,
        quietToMinutes: row.quietToMinutes,
        reviewDelayMinutes: row.reviewDelayMinutes,
        reviewLowScore: row.reviewLowScore,
        reviewUrl: row.reviewUrl,
        rebookDays: row.rebookDays,
        noShowMessage: row.noShowMessage,
        matchClientRecords: row.matchClientRecords,
      };
    } catch (error) {
      if (error instanceof SecretBoxError) throw new AppError('invalid_request_error', `${error.message}. Сохраните настройки YCLIENTS заново`);
      throw error;
    }
  }

  async function row(agentId: string): Promise<Row | undefined> {
    const [found] = await db.select().from(bookingSettings).where(eq(bookingSettings.agentId, agentId));
    return found;
  }

  return {
    async read(agentId: string): Promise<BookingSettingsView> {
      return view(await row(agentId));
    },

    /** The agent's settings opened for use, or null when the integration is not set up. */
    async load(agentId: string): Promise<OpenBookingSettings | null> {
      const found = await row(agentId);
      return found ? openRow(found) : null;
    },

    /** Agents whose owners turned synchronisation on. */
    async listSynced(): Promise<OpenBookingSettings[]> {
      const rows = await db.select().from(bookingSettings).where(eq(bookingSettings.syncEnabled, true));
      const opened: OpenBookingSettings[] = [];
      for (const r of rows) {
        try {
          opened.push(openRow(r));
        } catch {
          // A value sealed under a key that is gone: that agent's owner has to save again; the rest sync.
        }
      }
      return opened;
    },

    async markSynced(agentId: string, error: string | null): Promise<void> {
      await db.update(bookingSettings).set({ lastSyncAt: new Date(), lastSyncError: error }).where(eq(bookingSettings.agentId, agentId));
    },

    /**
     * Saves settings after logging in to YCLIENTS with them. Credentials left out keep their stored
     * values; on a first save all three are required.
     */
    async save(agentId: string, input: BookingSettingsInput): Promise<BookingSettingsView> {
      const existing = await row(agentId);
      const current = existing ? openRow(existing) : null;
      const partnerToken = input.partnerToken ?? current?.partnerToken;
      const login = input.login ?? current?.login;
      const password = input.password ?? current?.password;
      const missing = [partnerToken ? null : 'partnerToken', login ? null : 'login', password ? null : 'password'].filter(Boolean);
      if (missing.length > 0 || !partnerToken || !login || !password) {
        throw new AppError('invalid_request_error', `Укажите ${missing.join(', ')}: без них YCLIENTS не подключить`);
      }

      // Log in, and make sure this administrator sees the company: a wrong companyId is as much a
      // wrong setting as a wrong password, and both are better told now than at the first booking.
      let userToken: string;
      const client = deps.clientFor(partnerToken);
      try {
        userToken = await client.authUser({ login, password });
        await client.getStaff(input.companyId, userToken);
      } catch (error) {
        throw bookingFailure(error, 'login', input.companyId);
      }

      const values = {
        partnerTokenSealed: box.seal(partnerToken),
        loginSealed: box.seal(login),
        passwordSealed: box.seal(password),
        companyId: input.companyId,
        syncEnabled: input.syncEnabled,
        slotCacheTtlMinutes: input.slotCacheTtlMinutes,
        specialistMapping: input.specialistMapping,
        serviceMapping: input.serviceMapping,
        reminderOffsetsMinutes: [...(input.reminderOffsetsMinutes ?? existing?.reminderOffsetsMinutes ?? DEFAULT_REMINDER_OFFSETS_MINUTES)].sort((a, b) => b - a),
        quietFromMinutes: input.quietFrom ? minutesOfClock(input.quietFrom) : (existing?.quietFromMinutes ?? minutesOfClock(DEFAULT_QUIET_FROM)),
        quietToMinutes: input.quietTo ? minutesOfClock(input.quietTo) : (existing?.quietToMinutes ?? minutesOfClock(DEFAULT_QUIET_TO)),
        // After the visit: left out, kept as stored (or the defaults at first).
        reviewDelayMinutes:
          input.reviewDelayMinutes === undefined ? (existing ? existing.reviewDelayMinutes : DEFAULT_REVIEW_DELAY_MINUTES) : input.reviewDelayMinutes,
        reviewLowScore: input.reviewLowScore ?? existing?.reviewLowScore ?? DEFAULT_REVIEW_LOW_SCORE,
        reviewUrl: input.reviewUrl === undefined ? (existing?.reviewUrl ?? null) : input.reviewUrl,
        rebookDays: input.rebookDays ?? existing?.rebookDays ?? {},
        noShowMessage: input.noShowMessage ?? existing?.noShowMessage ?? false,
        matchClientRecords: input.matchClientRecords ?? existing?.matchClientRecords ?? false,
        updatedAt: new Date(),
      };
      const [saved] = await db
        .insert(bookingSettings)
        .values({ agentId, ...values })
        .onConflictDoUpdate({ target: bookingSettings.agentId, set: values })
        .returning();
      // Whatever was cached belongs to the old settings; the token just obtained is good for the new.
      await cache.clear(agentId);
      await cache.set(agentId, USER_TOKEN_KEY, { sealed: box.seal(userToken) }, deps.userTokenTtlSeconds);
      return view(saved);
    },
  };
}

export const USER_TOKEN_KEY = 'user-token';

export type BookingSettings = ReturnType<typeof createBookingSettings>;
