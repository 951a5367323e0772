// How YCLIENTS' loosely typed values are read: numbers and flags may arrive as strings (older endpoints), lists as
// anything. Shared by the client's parsers (client.ts).

export function isString(v: unknown): v is string {
  return typeof v === 'string';
}

export function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Older endpoints send numbers as strings ("16", "1000.00"). */
export function num(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

export function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  return '';
}

/** Flags arrive as booleans, 0/1 or "0"/"1". */
export function bool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  const n = num(v);
  return n !== null && n !== 0;
}
