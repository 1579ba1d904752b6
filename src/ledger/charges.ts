import type { Access } from '../contract/index.js';
import type { Depth } from '../contract/decision.js';
import type { DecisionEntry } from './decisions.js';
import type { MetricsRow } from './metrics.js';
import type { Caller, Channel } from '../contract/caller.js';

export interface ReserveRequest {
  caller: Caller;
  depth: Depth;
  /** Client IP as seen by the server (only a fingerprint of it is stored). */
  ip: string;
  /**
   * Standard decisions paid for together (the questions of one System One request):
   * each unit what one standard decision costs, taken in turn (free while the
   * allowance and the site's limits allow, then one credit), all of them or none.
   * 1 when absent; only at standard depth.
   */
  units?: number;
}

export interface Reservation {
  id: string;
  /**
   * `free`: the key's daily allowance; `credits`: pass credits. Of several units (free
   * ones are taken first): `credits` as soon as one of them took a credit.
   */
  kind: 'free' | 'credits';
  /** Credits; of several units, how many (each one free unit or one credit). */
  cost: number;
}

/**
 * Why the ledger refuses a charge; the service words each as the contract's error.
 * `key_revoked`: the caller's key was revoked after it was looked up (a server may
 * keep a key it looked up for a while, keys.ts), so nothing is taken for it.
 */
export type Refusal = 'pass_required' | 'insufficient_credits' | 'free_limit_reached' | 'rate_limited' | 'key_revoked';

export type ReserveOutcome = { ok: true; reservation: Reservation; access: Access } | { ok: false; code: Refusal };

/**
 * What committing a reservation did. `charged: false` when the reservation was no
 * longer `reserved` and not committed either: released by expiry before the commit came
 * (PostgreSQL: its server stalled past the decision deadline plus the margin and another
 * server swept it), or unknown. `access` then holds what the caller has now, in the kind
 * the reservation took (its key's free allowance left that day, or its pass's credits),
 * null for an unknown reservation.
 */
export type CommitOutcome = { charged: true } | { charged: false; access: Access | null };

/**
 * What a finished decision writes together with its commit, in the same transaction,
 * so that a process that dies at any moment leaves all of it (the charge, the metrics
 * sample, the answer kept for the Idempotency-Key: a retry replays it) or none of it
 * (the reservation is released, the running record dropped: a retry runs afresh and is
 * charged once).
 */
export interface Settlement {
  /**
   * The decision's processing time: one sample of `channel`'s metrics for the UTC day
   * of `reservedAt`, the `now` its reserve was given. A decision that straddles
   * midnight counts on the day it was charged, not the day it ended.
   */
  sample: { reservedAt: Date; channel: Channel; ms: number };
  /** The running Idempotency-Key record that keeps the answer (status 200) for replays. */
  idempotency?: { keyId: string; idemKey: string };
  /**
   * Of a reservation of several units: how many the answer used (1 or more). The rest
   * are given back in the same transaction, credits before free units. All when absent.
   */
  units?: number;
  /**
   * The answer's body, once the commit knows whether it charged; `api` is the `api`
   * channel's metrics of the sample's day with this sample counted. Called inside the
   * transaction (synchronous, must not throw), possibly more than once if the
   * transaction is retried; the last call's body is the one kept.
   */
  answer(outcome: CommitOutcome, api: MetricsRow): string;
  /**
   * The decision log's entry (decisions.ts), when the log is on: asked after `answer`,
   * inside the transaction, on the same terms (synchronous, must not throw), and
   * written with the commit, so a decision is logged exactly once, when it was served.
   * Written in a savepoint of its own: an entry the store refuses is left out, and the
   * charge, sample and kept answer are committed all the same (a decision whose entry
   * failed must not be served free), `unlogged` told why.
   */
  logged?(outcome: CommitOutcome): DecisionEntry;
  /** The entry of a committed decision was not written: `error` is what the store said. Must not throw. */
  unlogged?(error: unknown): void;
}

/**
 * The money path. Money moves only as rows of `charges` (reserved → committed |
 * released), each transition one transaction with a guard, so concurrent requests
 * never overspend and a failure gives back exactly what it took.
 */
export interface Charges {
  /**
   * Takes what a decision costs, in one transaction: the key's free allowance of the
   * UTC day of `now` for a standard decision while it lasts (and the site's limits
   * allow), else pass credits. Decides 402/429 as docs/api.md's "Charges" says.
   */
  reserve(request: ReserveRequest, now: Date): Promise<ReserveOutcome>;
  /**
   * reserved → committed, and reports whether that charged. Idempotent: committing a
   * committed reservation again reports `charged: true` and writes nothing; one that was
   * released (or is unknown) stays so, reports `charged: false`, and is never charged.
   * With a `settlement`, its sample, answer and log entry are written in the same transaction
   * (also when nothing was charged: the decision was still served).
   */
  commit(reservationId: string, now: Date, settlement?: Settlement): Promise<CommitOutcome>;
  /** reserved → released, giving back exactly what it took. Idempotent. */
  release(reservationId: string, now: Date): Promise<void>;
}
