// An operator acting on a user's API keys: revoking one, and setting its budget (spend limit and the
// period it resets in). The keys service does the work exactly as for the owner's own revoke and PATCH
// (every instance's key cache forgets the key at commit); the audit row is written in that transaction.
import { isUuid } from '../db/uuid';
import { AppError } from '../http/errors';
import { keysMessages, type LimitReset, type KeyRow, type KeyService } from '../keys';
import { nanoToDecimalString } from '../money';
import { recordAudit, type AuditActor } from './audit';

export interface AdminUserKeysDeps {
  keys: Pick<KeyService, 'revoke' | 'update'>;
}

export interface KeyBudget {
  /** Nano-units; null: no limit. */
  spendLimitNano: bigint | null;
  limitReset: LimitReset;
}

/** A key as the audit shows it: its name and prefix beside the figures, so the row reads without a lookup. */
const keyFacts = (row: KeyRow) => ({ keyId: row.id, keyName: row.name, keyPrefix: row.keyPrefix });
const budgetOf = (row: KeyRow) => ({
  spendLimit: row.spendLimitNano === null ? null : nanoToDecimalString(row.spendLimitNano),
  limitReset: row.limitReset,
});

export function createAdminUserKeys({ keys }: AdminUserKeysDeps) {
  /** The key must be the user's: an unknown user or someone else's key is the same 404. */
  const checkIds = (userId: string, keyId: string) => {
    if (!isUuid(userId) || !isUuid(keyId)) throw new AppError('not_found', keysMessages.keyNotFound);
  };

  return {
    /** Revokes at once on every instance; a key already revoked stays so and writes no audit row. */
    async revoke(actor: AuditActor, userId: string, keyId: string): Promise<void> {
      checkIds(userId, keyId);
      await keys.revoke(userId, keyId, (tx, { after }) =>
        recordAudit(tx, actor, {
          action: 'key.revoke',
          targetType: 'user',
          targetId: userId,
          before: { ...keyFacts(after), active: true },
          after: { ...keyFacts(after), active: false },
        }),
      );
    },

    /** Sets the key's spend limit and reset period; what the key spent this period counts against the new limit. */
    async setBudget(actor: AuditActor, userId: string, keyId: string, budget: KeyBudget) {
      checkIds(userId, keyId);
      return keys.update(userId, keyId, { spendLimitNano: budget.spendLimitNano, limitReset: budget.limitReset }, (tx, { before, after }) =>
        recordAudit(tx, actor, {
          action: 'key.limit',
          targetType: 'user',
          targetId: userId,
          before: { ...keyFacts(before), ...budgetOf(before) },
          after: { ...keyFacts(after), ...budgetOf(after) },
        }),
      );
    },
  };
}

export type AdminUserKeys = ReturnType<typeof createAdminUserKeys>;
