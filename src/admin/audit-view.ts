// The audit row as an operator reads it: the action named in Russian, the record by its name (a provider's
// name, an account's e-mail, a route's pattern) while it still exists, and each change as a line
// («вес: 1 → 2», «лимит расходов: 100,00 ₽ → 200,00 ₽»). Made on the server so every API client gets the
// same words as the console; the raw before/after stay beside it for machines.
import type { AuditAction, JsonObject, JsonValue } from './audit-actions';
import { auditActionTexts, auditCampaignKindTexts, auditFieldTexts, auditLimitResetTexts, auditProviderStateTexts, auditTargetTexts } from './texts';
import { formatMoneyText, unitsToNano } from '../money';

/** What still exists of the records a page of rows names, looked up once for the page. */
export interface AuditNames {
  /** Provider id → its current name (the built-in one included). */
  providers: ReadonlyMap<string, string>;
  /** Route patterns that still have a route. */
  routes: ReadonlySet<string>;
  /** Price patterns that still have a price. */
  prices: ReadonlySet<string>;
}

export interface AuditRowFacts {
  action: string;
  targetType: string;
  targetId: string | null;
  /** The target account's e-mail; null when the target is no account or the account is gone. */
  targetEmail: string | null;
  before: JsonObject | null;
  after: JsonObject | null;
}

export interface AuditChange {
  field: string;
  /** What changed, in Russian: a field («вес») or, for a route, «провайдер «X», вес». */
  label: string;
  /** The values as text; null: there was none before (created) or there is none after (removed). */
  before: string | null;
  after: string | null;
  /** The whole line: «вес: 1 → 2», «название: OpenRouter» (set), «цена: 1,00 ₽ → удалено». */
  text: string;
}

export interface AuditView {
  actionText: string;
  /** The record by its name: «Провайдер «OpenRouter»», «Пользователь anna@example.com», «Маршрут openai/*». */
  targetText: string;
  /** False when the record is gone: the page then shows targetId beside the last name the log knows. */
  targetExists: boolean;
  changes: AuditChange[];
}

/** Fields not shown as a change: an id the row names by something readable (the key by its name), a counter the action's name says in words. */
const HIDDEN_FIELDS = new Set(['keyId', 'sessionsGeneration']);
const MONEY_FIELDS = new Set(['balance', 'amount', 'spendLimit']);
const PRICE_FIELDS = new Set(['promptPerMillion', 'completionPerMillion']);
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T/;

const moscowTime = new Intl.DateTimeFormat('ru-RU', {
  timeZone: 'Europe/Moscow',
  day: '2-digit',
  month: '2-digit',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
});

/** A decimal text in currency units (as the log stores money) as a sum; the text itself if it is not one. */
function moneyText(value: string | number, currency: string): string {
  const nano = unitsToNano(Number(value));
  return nano === null ? String(value) : formatMoneyText(nano, currency);
}

function valueText(field: string, value: JsonValue | undefined, currency: string): string {
  if (value === undefined) return '—';
  if (field === 'spendLimit' && value === null) return 'без лимита';
  if (field === 'allowedModels' && value === null) return 'все модели';
  if (value === null) return '—';
  if (typeof value === 'boolean') return value ? 'да' : 'нет';
  if (MONEY_FIELDS.has(field) && (typeof value === 'string' || typeof value === 'number')) return moneyText(value, currency);
  if (PRICE_FIELDS.has(field) && (typeof value === 'string' || typeof value === 'number')) return `${moneyText(value, currency)} за 1 млн токенов`;
  // Only a per-second price writes its kind (admin/prices.ts).
  if (field === 'kind' && value === 'per_second') return 'за секунду аудио';
  if (field === 'perSecond' && (typeof value === 'string' || typeof value === 'number')) return `${moneyText(value, currency)} за секунду аудио`;
  if (field === 'campaignKind' && typeof value === 'string') return auditCampaignKindTexts[value] ?? value;
  if (field === 'limitReset' && typeof value === 'string') return auditLimitResetTexts[value] ?? value;
  if (field === 'state' && typeof value === 'string') return auditProviderStateTexts[value] ?? value;
  if (field === 'timeoutMs' && typeof value === 'number') return `${(value / 1000).toLocaleString('ru-RU')} с`;
  if (typeof value === 'string') {
    if (ISO_TIME.test(value) && !Number.isNaN(Date.parse(value))) return `${moscowTime.format(new Date(value))} по Москве`;
    return value;
  }
  if (typeof value === 'number') return value.toLocaleString('ru-RU');
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.length === 0 ? 'нет' : value.join(', ');
  if (Array.isArray(value)) {
    // An import lists its prices: their patterns say enough.
    const patterns = value.map((v) => (v && typeof v === 'object' && !Array.isArray(v) && 'pattern' in v ? String(v.pattern) : JSON.stringify(v)));
    return patterns.length === 0 ? 'нет' : `${patterns.length}: ${patterns.join(', ')}`;
  }
  return JSON.stringify(value);
}

function line(label: string, before: string | null, after: string | null): string {
  if (before === null) return `${label}: ${after ?? '—'}`;
  if (after === null) return `${label}: ${before} → удалено`;
  return before === after ? `${label}: ${after}` : `${label}: ${before} → ${after}`;
}

function change(field: string, label: string, before: string | null, after: string | null): AuditChange {
  return { field, label, before, after, text: line(label, before, after) };
}

interface StoredTarget {
  providerId: string;
  priority: number;
  weight: number;
  model?: string;
  costPrice?: { promptNanoPerMillion: string; completionNanoPerMillion: string };
}

function storedTargets(value: JsonValue | undefined): StoredTarget[] {
  if (!Array.isArray(value)) return [];
  return value.filter((t): t is JsonObject => t !== null && typeof t === 'object' && !Array.isArray(t)).map((t) => t as unknown as StoredTarget);
}

function costText(cost: StoredTarget['costPrice'], currency: string): string {
  if (!cost) return 'не указана';
  const money = (nano: string) => formatMoneyText(BigInt(nano), currency);
  return `запрос ${money(cost.promptNanoPerMillion)}, ответ ${money(cost.completionNanoPerMillion)} за 1 млн токенов`;
}

/**
 * A route's targets, before and after, as lines per provider: which came, which went, and for the ones in
 * both what of priority, weight, upstream model and cost price moved. Providers named by their current name;
 * one deleted since is named by its id and «удалён».
 */
function routeChanges(before: JsonValue | undefined, after: JsonValue | undefined, names: AuditNames, currency: string): AuditChange[] {
  const providerName = (id: string) => {
    const name = names.providers.get(id);
    return name === undefined ? `провайдер ${id} (${auditTargetTexts.gone})` : `провайдер «${name}»`;
  };
  // A provider may serve one route twice under different upstream models: the pair is the target's identity.
  const keyOf = (t: StoredTarget) => `${t.providerId}\u0000${t.model ?? ''}`;
  const was = new Map(storedTargets(before).map((t) => [keyOf(t), t]));
  const now = new Map(storedTargets(after).map((t) => [keyOf(t), t]));
  const out: AuditChange[] = [];
  const describe = (t: StoredTarget) =>
    [
      `приоритет ${t.priority}`,
      `вес ${t.weight}`,
      ...(t.model ? [`модель ${t.model}`] : []),
      ...(t.costPrice ? [`цена провайдера: ${costText(t.costPrice, currency)}`] : []),
    ].join(', ');
  for (const [key, t] of now) {
    const old = was.get(key);
    const who = providerName(t.providerId) + (t.model ? ` (${t.model})` : '');
    if (!old) {
      out.push(change('targets', who, null, describe(t)));
      continue;
    }
    const parts: [string, string, string][] = [
      ['приоритет', String(old.priority), String(t.priority)],
      ['вес', String(old.weight), String(t.weight)],
      ['цена провайдера', costText(old.costPrice, currency), costText(t.costPrice, currency)],
    ];
    const moved = parts.filter(([, a, b]) => a !== b);
    if (moved.length === 0) out.push(change('targets', who, describe(t), describe(t)));
    for (const [what, a, b] of moved) out.push(change('targets', `${who}, ${what}`, a, b));
  }
  for (const [key, t] of was) {
    if (now.has(key)) continue;
    out.push(change('targets', providerName(t.providerId) + (t.model ? ` (${t.model})` : ''), describe(t), null));
  }
  return out;
}

function target(row: AuditRowFacts, names: AuditNames): { targetText: string; targetExists: boolean } {
  const id = row.targetId;
  switch (row.targetType) {
    case 'user':
      if (row.targetEmail !== null) return { targetText: auditTargetTexts.user(row.targetEmail), targetExists: true };
      return { targetText: `${auditTargetTexts.user(id ?? '—')} (${auditTargetTexts.gone})`, targetExists: false };
    case 'provider': {
      const name = id === null ? undefined : names.providers.get(id);
      if (name !== undefined) return { targetText: auditTargetTexts.provider(name), targetExists: true };
      // Gone: the last name the log holds for it (a deletion's «before» has it), else its id.
      const recorded = row.before?.name ?? row.after?.name;
      return { targetText: `${auditTargetTexts.provider(typeof recorded === 'string' ? recorded : (id ?? '—'))} (${auditTargetTexts.gone})`, targetExists: false };
    }
    case 'route':
      if (id === null) return { targetText: auditTargetTexts.route('—'), targetExists: false };
      return names.routes.has(id)
        ? { targetText: auditTargetTexts.route(id), targetExists: true }
        : { targetText: `${auditTargetTexts.route(id)} (${auditTargetTexts.gone})`, targetExists: false };
    case 'price':
      if (id === null) return { targetText: auditTargetTexts.priceTable, targetExists: true };
      return names.prices.has(id)
        ? { targetText: auditTargetTexts.price(id), targetExists: true }
        : { targetText: `${auditTargetTexts.price(id)} (${auditTargetTexts.gone})`, targetExists: false };
    case 'requisites':
      return { targetText: auditTargetTexts.requisites, targetExists: true };
    case 'invoice':
      return { targetText: auditTargetTexts.invoice(id ?? '—'), targetExists: true };
    case 'bank_statement':
      return { targetText: auditTargetTexts.bankStatement, targetExists: true };
    case 'bank_payment':
      return { targetText: auditTargetTexts.bankPayment, targetExists: true };
    case 'promo_campaign': {
      const recorded = row.after?.name ?? row.before?.name;
      return { targetText: auditTargetTexts.promoCampaign(typeof recorded === 'string' ? recorded : (id ?? '—')), targetExists: true };
    }
    case 'price_group':
      return { targetText: auditTargetTexts.priceGroup(id ?? '—'), targetExists: true };
    case 'organization': {
      // Its name as the row recorded it (each organisation row carries it), else its id.
      const recorded = row.after?.organization ?? row.before?.organization;
      return { targetText: auditTargetTexts.organization(typeof recorded === 'string' ? `«${recorded}»` : (id ?? '—')), targetExists: true };
    }
    default:
      return { targetText: id === null ? row.targetType : `${row.targetType} ${id}`, targetExists: true };
  }
}

export function describeAudit(row: AuditRowFacts, names: AuditNames, currency: string): AuditView {
  const before = row.before ?? {};
  const after = row.after ?? {};
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((f) => !HIDDEN_FIELDS.has(f));
  const changes: AuditChange[] = [];
  for (const field of fields) {
    if (field === 'targets') {
      changes.push(...routeChanges(before[field], after[field], names, currency));
      continue;
    }
    const label = auditFieldTexts[field] ?? field;
    const had = field in before;
    const has = field in after;
    changes.push(change(field, label, had ? valueText(field, before[field], currency) : null, has ? valueText(field, after[field], currency) : null));
  }
  return { actionText: auditActionTexts[row.action as AuditAction] ?? row.action, ...target(row, names), changes };
}
