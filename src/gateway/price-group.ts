// The price group a /v1 request is priced in (issue 45): a key's comes with the key (the verifier reads it
// with the key, and a move of the account drops the cached keys on every instance), an assistant's call
// (no key) reads its owner's from the database. A group the price book has not loaded yet (created on
// another instance a moment ago) makes the book reload first, so nobody is priced by a stand-in.
import { eq } from 'drizzle-orm';
import { users } from '../accounts/tables';
import type { Database } from '../db/client';
import type { PriceBook } from '../pricing/prices';
import type { Authenticator } from '../auth';
import { bearerToken } from '../http/bearer';
import { type KeyVerifier, ORGANIZATION_ROLES } from '../keys';

export interface GroupPayer {
  userId: string;
  /** Known with the key; absent: read from the account. */
  priceGroup?: string | undefined;
}

export function createPayerGroups({ db, prices }: { db: Database; prices: Pick<PriceBook, 'knowsGroup' | 'reload' | 'defaultGroup'> }) {
  async function lookUp(payer: GroupPayer): Promise<string> {
    let group = payer.priceGroup;
    if (group === undefined) {
      const [row] = await db.select({ group: users.priceGroup }).from(users).where(eq(users.id, payer.userId)).limit(1);
      group = row?.group ?? prices.defaultGroup;
    }
    if (!prices.knowsGroup(group)) await prices.reload();
    return group;
  }

  /** The payer's group: at once when the key brought a group the book knows (the hot path), else looked up. */
  return function groupOf(payer: GroupPayer): string | Promise<string> {
    const group = payer.priceGroup;
    return group !== undefined && prices.knowsGroup(group) ? group : lookUp(payer);
  };
}

export type PayerGroups = ReturnType<typeof createPayerGroups>;

/**
 * Whose prices GET /v1/models shows (issue 45): with a Bearer credential that works (an API key, or the
 * dashboard's JWT, with X-Conduit-Organization the organisation's), its account's group; without one, or
 * with one that does not work (the list needs no credential), the default group's.
 */
export function createViewerGroup({
  db,
  prices,
  authenticator,
  verifier,
}: {
  db: Database;
  prices: Pick<PriceBook, 'knowsGroup' | 'reload' | 'defaultGroup'>;
  authenticator: Pick<Authenticator, 'jwtOrKey'>;
  verifier: Pick<KeyVerifier, 'resolve'>;
}) {
  const groupOf = createPayerGroups({ db, prices });
  return async function viewerGroup(headers: Headers): Promise<string> {
    const token = bearerToken(headers);
    if (!token) return prices.defaultGroup;
    const principal = await authenticator.jwtOrKey(headers, ORGANIZATION_ROLES).catch(() => null);
    if (!principal) return prices.defaultGroup;
    // A key's group comes with the cached key (an SDK lists models with its key): no database read.
    const key = principal.via === 'api_key' ? await verifier.resolve(token) : null;
    return groupOf(key ? { userId: key.userId, priceGroup: key.priceGroup } : { userId: principal.userId });
  };
}
