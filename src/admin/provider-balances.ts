// The providers' balances, where a provider exposes one: read every PROVIDER_BALANCE_SECONDS, shown in
// «Провайдеры», and the operators (ADMIN_EMAILS) mailed once each time a balance falls below the
// provider's threshold.
//
// Where it is read: a provider's `balanceUrl` (GET with the provider's own key as a bearer token) and the
// number at its `balancePath` in the JSON answer; without a path the answer is OpenRouter's
// `{data: {total_credits, total_usage}}` and the balance is credits − usage. A provider on openrouter.ai
// with no URL set is read at {baseUrl}/credits (OpenRouter's GET /api/v1/credits, which wants a
// management key: with an ordinary key the read fails and the card says so). The built-in `default` is
// read the same way when UPSTREAM_BASE_URL is OpenRouter; its threshold is UPSTREAM_BALANCE_THRESHOLD.
//
// Once across instances: a round runs under an advisory lock. The crossing is kept in the row
// (`provider_balances.below`): the mail is queued in the transaction that sets it, through the alerts'
// mail outbox (alerts/delivery.ts sends it over SMTP_URL), and nothing more is sent until a read finds
// the balance at or above the threshold again, which clears it.
import { eq, sql } from 'drizzle-orm';
import { ALERT_MAIL_KIND, mailBodies } from '../alerts';
import type { Config } from '../config';
import type { SecretBox } from '../crypto/secret-box';
import type { Database, DatabaseHandle } from '../db/client';
import { DEFAULT_PROVIDER_ID } from '../gateway';
import { providerBalances, providers } from '../gateway/tables';
import { createPeriodicJob } from '../jobs/periodic';
import { enqueueOutbox, type NewOutboxRow } from '../jobs/outbox';
import type { Logger } from '../logger';
import { formatMoneyText, unitsToNanoRounded } from '../money';
import { providerBalanceMail } from './texts';

export const PROVIDER_BALANCES_LOCK = 'admin.provider-balances';
const READ_TIMEOUT_MS = 15_000;
const ANSWER_MAX_BYTES = 64 * 1024;

/** Where a provider's balance is read, if anywhere. */
export interface BalanceSource {
  url: string;
  /** null: OpenRouter's credits − usage. */
  path: string | null;
}

const isOpenRouter = (baseUrl: string) => {
  try {
    const host = new URL(baseUrl).hostname;
    return host === 'openrouter.ai' || host.endsWith('.openrouter.ai');
  } catch {
    return false;
  }
};

export function balanceSource(provider: { baseUrl: string; balanceUrl: string | null; balancePath: string | null }): BalanceSource | null {
  if (provider.balanceUrl) return { url: provider.balanceUrl, path: provider.balancePath };
  return isOpenRouter(provider.baseUrl) ? { url: `${provider.baseUrl}/credits`, path: null } : null;
}

/** A JSON number, or a number written as a string, as nano-units; null otherwise. */
function nanoOf(value: unknown): bigint | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(n) && Math.abs(n) < 1e12 ? unitsToNanoRounded(n) : null;
}

/** The balance in a parsed answer: at `path`, or OpenRouter's credits − usage. */
export function balanceIn(answer: unknown, path: string | null): bigint | null {
  if (path === null) {
    const data = (answer as { data?: { total_credits?: unknown; total_usage?: unknown } } | null)?.data;
    const credits = nanoOf(data?.total_credits);
    const usage = nanoOf(data?.total_usage);
    return credits === null || usage === null ? null : credits - usage;
  }
  let here: unknown = answer;
  for (const step of path.split('.')) {
    if (here === null || typeof here !== 'object') return null;
    here = (here as Record<string, unknown>)[step];
  }
  return nanoOf(here);
}

/** One read: the balance, or why there is none. */
async function readBalance(source: BalanceSource, apiKey: string | null): Promise<{ balanceNano: bigint } | { error: string }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  try {
    const response = await fetch(source.url, { headers, signal: AbortSignal.timeout(READ_TIMEOUT_MS), redirect: 'error' });
    const text = (await response.text()).slice(0, ANSWER_MAX_BYTES);
    if (!response.ok) return { error: `status ${response.status}` };
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { error: 'the answer is not JSON' };
    }
    const balanceNano = balanceIn(parsed, source.path);
    return balanceNano === null ? { error: source.path ? `no number at ${source.path}` : 'no data.total_credits and data.total_usage' } : { balanceNano };
  } catch (error) {
    return { error: error instanceof Error && error.name === 'TimeoutError' ? 'no answer in time' : 'not reached' };
  }
}

interface Watched {
  id: string;
  name: string;
  source: BalanceSource;
  apiKey: string | null;
  thresholdNano: bigint | null;
}

export interface ProviderBalancesDeps {
  db: Database;
  database: Pick<DatabaseHandle, 'withLock'>;
  box: Pick<SecretBox, 'open'>;
  logger: Logger;
  config: Pick<Config, 'upstreamBaseUrl' | 'upstreamApiKey' | 'upstreamBalanceThresholdNano' | 'providerBalanceSeconds' | 'smtp' | 'adminEmails' | 'publicBaseUrl'>;
  /** The outbox is told a mail is waiting, so it leaves without waiting for the poll. */
  wake: () => void;
}

export function createProviderBalances({ db, database, box, logger, config, wake }: ProviderBalancesDeps) {
  async function watched(): Promise<Watched[]> {
    const out: Watched[] = [];
    const builtIn = balanceSource({ baseUrl: config.upstreamBaseUrl, balanceUrl: null, balancePath: null });
    if (builtIn) {
      out.push({
        id: DEFAULT_PROVIDER_ID,
        name: DEFAULT_PROVIDER_ID,
        source: builtIn,
        apiKey: config.upstreamApiKey ?? null,
        thresholdNano: config.upstreamBalanceThresholdNano,
      });
    }
    for (const row of await db.select().from(providers)) {
      const source = balanceSource(row);
      if (!source || !row.enabled) continue;
      let apiKey: string | null = null;
      try {
        apiKey = row.apiKeySealed ? box.open(row.apiKeySealed, 'apiKey') : null;
      } catch {
        // Sealed with a key this instance does not have: the routing skips the provider too.
        continue;
      }
      out.push({ id: row.id, name: row.name, source, apiKey, thresholdNano: row.balanceThresholdNano });
    }
    return out;
  }

  function alertRows(provider: Watched, balanceNano: bigint): NewOutboxRow[] {
    if (!config.smtp || config.adminEmails.length === 0 || provider.thresholdNano === null) return [];
    const url = `${config.publicBaseUrl}/app/admin/providers`;
    const mail = providerBalanceMail(provider.name, formatMoneyText(balanceNano, undefined), formatMoneyText(provider.thresholdNano, undefined), url);
    const payload = { subject: mail.subject, ...mailBodies(mail.lines, [url]) };
    return config.adminEmails.map((email) => ({ kind: ALERT_MAIL_KIND, recipient: email, payload }));
  }

  /** Records one read; true when it crossed below the threshold (the operators' mail is queued with it). */
  async function record(provider: Watched, read: Awaited<ReturnType<typeof readBalance>>): Promise<boolean> {
    return db.transaction(async (tx) => {
      const [before] = await tx.select().from(providerBalances).where(eq(providerBalances.providerId, provider.id)).for('update');
      if ('error' in read) {
        await tx
          .insert(providerBalances)
          .values({ providerId: provider.id, error: read.error })
          .onConflictDoUpdate({ target: providerBalances.providerId, set: { error: read.error, checkedAt: sql`now()` } });
        return false;
      }
      const below = provider.thresholdNano !== null && read.balanceNano < provider.thresholdNano;
      const values = { balanceNano: read.balanceNano, error: null, below, checkedAt: sql`now()` };
      await tx
        .insert(providerBalances)
        .values({ providerId: provider.id, ...values })
        .onConflictDoUpdate({ target: providerBalances.providerId, set: values });
      const crossed = below && !before?.below;
      if (crossed) {
        const rows = alertRows(provider, read.balanceNano);
        if (rows.length > 0) await enqueueOutbox(tx, rows);
      }
      return crossed;
    });
  }

  /** One round over every provider with a balance to read; the providers that crossed below their threshold. */
  async function round(): Promise<string[]> {
    const outcome = await database.withLock(PROVIDER_BALANCES_LOCK, async () => {
      const crossed: string[] = [];
      for (const provider of await watched()) {
        const read = await readBalance(provider.source, provider.apiKey);
        if ('error' in read) logger.warn('could not read a provider’s balance', { providerId: provider.id, error: read.error });
        if (await record(provider, read)) {
          crossed.push(provider.id);
          logger.error('provider balance below its threshold; the operators are mailed', { providerId: provider.id });
        }
      }
      return crossed;
    });
    if (outcome.acquired && outcome.value.length > 0) wake();
    return outcome.acquired ? outcome.value : [];
  }

  const job = createPeriodicJob({ name: 'provider balances', intervalMs: Math.max(1, config.providerBalanceSeconds) * 1000, run: round, logger });

  return {
    round,
    start() {
      if (config.providerBalanceSeconds > 0) job.start();
    },
    stop: () => job.stop(),
  };
}

export type ProviderBalances = ReturnType<typeof createProviderBalances>;
