// The one rule for text the service stores: no U+0000 and no lone UTF-16 surrogate. PostgreSQL text and
// jsonb cannot hold NUL at all (the insert fails, and the request with it), and a lone surrogate has no
// UTF-8 form: jsonb refuses its \ud800 escape, a text column silently gets U+FFFD instead. Neither comes
// from anyone typing; clients that send them are refused (with the field named), third parties whose
// payloads we keep (VK, Telegram) are cleaned instead, since they resend whatever we refuse.
//
// Both walks are iterative: a JSON body under the size limit can nest deeper than the call stack.

/** True when the string can be stored as sent. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && text.isWellFormed();
}

/** The string with NUL removed and each lone surrogate replaced by U+FFFD (what UTF-8 encoding does). */
export function storableText(text: string): string {
  return isStorableText(text) ? text : text.replaceAll('\u0000', '').toWellFormed();
}

const MAX_FIELD_NAME = 120;

/**
 * Where the first string that is not storable sits in a parsed JSON value, as the field path a client
 * recognises (`products.0.title`); the path of the object when the bad string is one of its keys. The
 * empty string names the value itself. Null when every string is fine.
 */
export function findUnstorableText(value: unknown): string | null {
  const stack: { node: unknown; path: string }[] = [{ node: value, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (typeof node === 'string') {
      if (!isStorableText(node)) return path.slice(0, MAX_FIELD_NAME);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const entries = Object.entries(node);
    for (const [key] of entries) if (!isStorableText(key)) return path.slice(0, MAX_FIELD_NAME);
    // Pushed last to first, so the fields are looked at (and the first bad one named) in document order.
    for (const [key, child] of entries.reverse()) stack.push({ node: child, path: path ? `${path}.${key}` : key });
  }
  return null;
}

/**
 * Cleans, in place, every string (values and keys) of a value parsed from a third party's JSON, and
 * returns it. Only for values this process parsed itself: it rewrites their properties.
 */
export function cleanStorableText<T>(value: T): T {
  if (typeof value === 'string') return storableText(value) as T;
  const stack: object[] = value !== null && typeof value === 'object' ? [value] : [];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown>;
    for (const [key, child] of Object.entries(node)) {
      const cleanKey = Array.isArray(node) ? key : storableText(key);
      const cleanChild = typeof child === 'string' ? storableText(child) : child;
      if (cleanKey !== key) delete node[key];
      if (cleanKey !== key || cleanChild !== child) {
        // defineProperty, not assignment: a key such as "__proto__" must stay a plain property.
        Object.defineProperty(node, cleanKey, { value: cleanChild, writable: true, enumerable: true, configurable: true });
      }
      if (cleanChild !== null && typeof cleanChild === 'object') stack.push(cleanChild);
    }
  }
  return value;
}
