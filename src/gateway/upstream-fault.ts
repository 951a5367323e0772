// Whose fault an upstream's refusal is: the provider's own (our key, our funds there, its trouble), or the
// request's (what the client sent). Only the provider's own faults may count against it, or a client could
// switch a provider off for everyone by sending what it refuses.
//
// The rule, by status and then by what the error body says (code, type, message; OpenRouter's `metadata`):
// - 401 and 407: our credentials (a client's never reach the provider) → `account`.
// - 402: out of funds → `account`; but a 402 that is about this request's size (OpenRouter: "This request
//   requires more credits, or fewer max_tokens. You requested up to N tokens, but can only afford M") is
//   `unaffordable`: another provider may take it, and it says nothing against this one.
// - 403: a moderation refusal (OpenRouter: "Your chosen model requires moderation and your input was
//   flagged", with `metadata.reasons` / `flagged_input`; `content_policy_violation`, `content_filter`, safety
//   wording) → `client`, relayed to the client as it came. So is a 403 about access to the model asked for
//   ("not allowed to access this model"): any client can ask for a model our account there may not use, and
//   that must not switch the provider off for every other model. A 403 that names our key, account, organisation,
//   credits, billing or the server's region (OpenAI: "Country, region, or territory not supported") →
//   `account`. Any other 403 → `client` too: passed through, counting for nothing.
// - 429: "insufficient_quota" / "exceeded your current quota" / credit exhausted (OpenAI's out-of-funds
//   answer) → `account`; any other 429 → `trouble`.
// - 408 and 5xx → `trouble` (counted towards a cooldown, the next provider asked).
// - Any other 4xx → `client`.

export type UpstreamFault =
  /** Our key or our account at the provider: the provider is disabled until an operator acts; the next one is asked. */
  | 'account'
  /** The provider's passing trouble: counted towards its cooldown; the next one is asked. */
  | 'trouble'
  /** Too large a request for what our account there can pay: the next one is asked; nothing is counted. */
  | 'unaffordable'
  /** The client's own request (moderation included): passed through; nothing counts against the provider. */
  | 'client';

/** The parts of an error body the rule reads. */
export interface FaultEvidence {
  message: string;
  type: string | null;
  code: string | null;
  /** OpenRouter's moderation metadata (`reasons`, `flagged_input`) was present. */
  flagged: boolean;
}

const MODERATION = /moderat|flagged|content[ _-]?(policy|filter|management)|safety|violat|prohibited|harmful|inappropriate/i;
const ACCOUNT =
  /api[ _-]?key|credential|authenticat|unauthori[sz]ed|not authori[sz]ed|organi[sz]ation|account|deactivated|suspended|banned|credit|quota|billing|balance|payment|funds|region|countr|territor/i;
const ACCOUNT_CODES = new Set([
  'invalid_api_key',
  'invalid_authentication',
  'account_deactivated',
  'unsupported_country_region_territory',
  'insufficient_quota',
  'insufficient_credits',
  'credit_balance_exhausted',
  'billing_hard_limit_reached',
  'billing_not_active',
  'payment_required',
]);
const QUOTA = /insufficient[ _-]?quota|current quota|credit[ _-]?balance|out of credits|insufficient credits|billing/i;
const MODEL_ACCESS = /\bmodel\b.*\b(access|allowed|permission|available|enabled)\b|\b(access|allowed|permission|available|enabled)\b.*\bmodel\b/i;
/** Characters of an error message the patterns read. */
const MESSAGE_READ = 2000;
const UNAFFORDABLE = /fewer max_tokens|can only afford|requested up to/i;

/** The fields of an upstream's error body, OpenAI's and OpenRouter's shapes (`error.code` may be a number there). */
export function faultEvidence(text: string): FaultEvidence {
  const empty: FaultEvidence = { message: '', type: null, code: null, flagged: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ...empty, message: text.slice(0, MESSAGE_READ) };
  }
  if (typeof parsed !== 'object' || parsed === null) return empty;
  const body = parsed as { error?: unknown; message?: unknown };
  const error = typeof body.error === 'object' && body.error !== null ? (body.error as Record<string, unknown>) : null;
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  const metadata = error && typeof error.metadata === 'object' && error.metadata !== null ? (error.metadata as Record<string, unknown>) : null;
  return {
    // Enough for any real error message; the patterns never read a provider's echo of a whole prompt.
    message: (str(error?.message) ?? str(body.error) ?? str(body.message) ?? '').slice(0, MESSAGE_READ),
    type: str(error?.type),
    code: str(error?.code),
    flagged: metadata !== null && ('reasons' in metadata || 'flagged_input' in metadata),
  };
}

/** The fault of a non-2xx answer (see the file's head). */
export function upstreamFault(status: number, evidence: FaultEvidence): UpstreamFault {
  const words = `${evidence.code ?? ''} ${evidence.type ?? ''} ${evidence.message}`;
  const accountCode = evidence.code !== null && ACCOUNT_CODES.has(evidence.code.toLowerCase());
  if (status === 401 || status === 407) return 'account';
  if (status === 402) return UNAFFORDABLE.test(evidence.message) ? 'unaffordable' : 'account';
  if (status === 403) {
    if (evidence.flagged || MODERATION.test(words) || MODEL_ACCESS.test(evidence.message)) return 'client';
    return accountCode || ACCOUNT.test(words) ? 'account' : 'client';
  }
  if (status === 429) return accountCode || QUOTA.test(words) ? 'account' : 'trouble';
  if (status === 408 || status >= 500) return 'trouble';
  return 'client';
}
