// One model id, one price (and one route): how a model id the client sent finds its row in a table of
// patterns (the price table, the routes). Ids compare case-insensitively after trimming, so
// `openai/GPT-4o-mini` is `openai/gpt-4o-mini`. A `:suffix` variant (`openai/gpt-4o-mini:nitro`) is
// found by its own row only: an exact row for the variant, or a prefix row that reaches past its base id
// (`openai/gpt-4o-mini:*`). When the base id has an exact row and the variant has none of its own, the
// variant is `variant_unlisted`: the caller refuses it rather than price it by a broader row (or the
// default) than its base, and rather than send upstream an id that was not priced.

/** How an id is compared: trimmed and lower-cased. */
export const modelKey = (model: string) => model.trim().toLowerCase();

/** The id without its `:suffix` (in the part after the owner's slash), or null when it has none. */
export function variantBase(key: string): string | null {
  const slash = key.indexOf('/');
  const colon = key.indexOf(':', slash + 1);
  return colon > slash + 1 ? key.slice(0, colon) : null;
}

/** A table of patterns as the lookups use it: exact ids and prefixes, both by modelKey, prefixes longest first. */
export interface PatternTable<T> {
  exact: ReadonlyMap<string, { pattern: string; value: T }>;
  prefixes: readonly { prefix: string; pattern: string; value: T }[];
}

export type PatternMatch<T> =
  /** `pattern` is the row's own spelling; `exact` says it names the id itself. */
  | { kind: 'match'; pattern: string; value: T; exact: boolean }
  /** No row covers the id. */
  | { kind: 'none' }
  /** A variant without a row of its own, whose base id has an exact row (`base`, with its value). */
  | { kind: 'variant_unlisted'; base: string; value: T };

/** Builds a PatternTable from rows whose pattern is an exact id or a prefix ending in `*`. */
export function patternTable<T>(rows: readonly { pattern: string; value: T }[]): PatternTable<T> {
  const exact = new Map<string, { pattern: string; value: T }>();
  const prefixes: { prefix: string; pattern: string; value: T }[] = [];
  for (const row of rows) {
    if (row.pattern.endsWith('*')) prefixes.push({ prefix: modelKey(row.pattern.slice(0, -1)), pattern: row.pattern, value: row.value });
    else exact.set(modelKey(row.pattern), { pattern: row.pattern, value: row.value });
  }
  prefixes.sort((a, b) => b.prefix.length - a.prefix.length);
  return { exact, prefixes };
}

/** The row an id takes (see the file's head). */
export function matchPattern<T>(model: string, table: PatternTable<T>): PatternMatch<T> {
  const key = modelKey(model);
  const found = table.exact.get(key);
  if (found) return { kind: 'match', pattern: found.pattern, value: found.value, exact: true };
  let prefix: { prefix: string; pattern: string; value: T } | null = null;
  for (const p of table.prefixes) {
    if (key.startsWith(p.prefix)) {
      prefix = p;
      break;
    }
  }
  const base = variantBase(key);
  if (base !== null && !(prefix && prefix.prefix.length > base.length)) {
    const baseRow = table.exact.get(base);
    if (baseRow) return { kind: 'variant_unlisted', base: baseRow.pattern, value: baseRow.value };
  }
  return prefix ? { kind: 'match', pattern: prefix.pattern, value: prefix.value, exact: false } : { kind: 'none' };
}
