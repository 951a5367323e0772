// Reservation and settlement of model requests against per-instance balance leases.
//
// An instance takes a lease (a slice of a user's balance) from the database in one atomic statement and
// reserves requests against it in memory, so the hot path does no I/O while the lease lasts (leases.ts).
// Settlements (usage rows, a ledger row per user, lease debits) are written in batches, each batch one
// statement (rows.ts), and a bounded backlog makes new reservations wait when the writer falls behind
// (writer.ts). At every commit users.balance_nano + Σ leases = Σ ledger; a lease outlives its instance only
// until it expires, and then any instance returns it to the balance. Idle leases go back on their own after
// a moment (housekeeping.ts). Keys with a spend limit, and the keys of an organisation member with a monthly
// limit, reserve the same way against a slice of the limit's budget (limit-claims.ts). An answer that
// costs more than its lease holds is settled on its own against the balance, down to zero and never below
// (overage.ts). Every settlement is in the journal before the
// answer's last byte, and an instance that starts writes what dead ones journaled (replay.ts).
//
// Lock order. Every transaction that touches more than one of these tables takes their rows in this
// order: balance_leases → key_leases → api_keys → member_leases → organization_members → users →
// usage_rollups → usage_rollups_daily (the sums
// are added last: the overage transaction writes its row at its end, and the batch statement runs the CTEs
// its result does not read, the inserts, after the ones it does). A transaction never locks a users row with
// FOR UPDATE: the foreign key of ledger_entries takes KEY SHARE locks on it, which FOR UPDATE
// would wait for, so locking reads use FOR NO KEY UPDATE. Top-ups lock their lease row first; the batch
// statement updates leases before users (its users update reads the lease update's result); the rare
// settlement is written by the same single writer as the batches, so an instance never runs the two at
// once. Reapers of expired leases run under a transaction-scoped advisory lock, one at a time. A
// transient failure (deadlock, serialization failure, lost connection) of a top-up is retried, then
// answered 503 with Retry-After; settlements stay queued and are retried by the writer.
//
// Callers import from here only; the files of this folder are its parts.
export { createBilling, type Billing } from './create';
export {
  LEASE_RECALL_CHANNEL,
  usageCost,
  type BillingObserver,
  type Charge,
  type BillingOptions,
  type Reservation,
  type RefusalFacts,
  type ReserveOptions,
  type UsageFacts,
  type UsageStatus,
} from './types';
