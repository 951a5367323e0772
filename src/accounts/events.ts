// What accounts tell other features, without knowing them.
import type { Executor } from '../db/client';
import { defineEvent } from '../platform/events';

/**
 * A person registered, inside the registration's transaction (`tx`): a listener that records something
 * about the new account (who invited it) writes it in that transaction, so neither is kept without the
 * other. A listener must not throw for a bad sign-up detail: that would refuse the registration.
 */
export interface AccountRegistered {
  tx: Executor;
  userId: string;
  email: string;
  /** The `referralCode` the registration carried (the `?ref=` of an invitation link), as sent; null when none. */
  referralCode: string | null;
}

export const accountRegistered = defineEvent<AccountRegistered>('accounts.registered');
