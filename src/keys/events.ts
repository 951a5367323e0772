// What happens to keys, for the caches that hold them (the verifier here, billing's key claims in the gateway).
import { defineEvent } from '../platform/events';

/** A key was revoked here: caches of it must drop it before the database's notice arrives. */
export const keyRevoked = defineEvent<string>('keys.revoked');
/** A key's limits changed (here or on another instance): claims on the old limit are void. */
export const keyChanged = defineEvent<string>('keys.changed');
/**
 * All of a user's keys were revoked or changed standing here, by another feature (the admin takeover of an
 * unverified account, accounts/email-verification.ts; an operator's block or move to another price group,
 * admin/): caches must drop them before the database's notice arrives.
 */
export const userKeysRevoked = defineEvent<string>('keys.user-keys-revoked');
