import type { Access } from '../contract/index.js';

/**
 * The ledger: keys, passes, the free allowance, credits, idempotency records,
 * metrics and the site's free limits. Two implementations share this interface:
 * SQLite (default, one file) and PostgreSQL (several servers).
 *
 * Money moves only as rows of `charges` (reserved → committed | released), each
 * transition one transaction with a guard, so concurrent requests never overspend
 * and a failure gives back exactly what it took.
 */

export type Channel = 'api' | 'web';
export type Depth = 'standard' | 'stress';

/** Who is asking: resolved from a key fingerprint. */
export interface Caller {
  keyId: string;
  passId: string;
  keyHint: string;
}

export interface Limits {
  /** Free standard decisions per key per UTC day (20). */
  freePerKey: number;
  /** Free decisions per client IP per UTC day; 0 = no limit. */
  freePerIp: number;
  /** Free decisions over the whole site per UTC day; 0 = no limit. */
  freePerSite: number;
}

export interface ReserveRequest {
  caller: Caller;
  depth: Depth;
  /** Client IP as seen by the server (only a fingerprint of it is stored). */
  ip: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
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

/** Why the ledger refuses a charge; the service words each as the contract's error. */
export type Refusal = 'pass_required' | 'insufficient_credits' | 'free_limit_reached' | 'rate_limited';

export type ReserveOutcome = { ok: true; reservation: Reservation; access: Access } | { ok: false; code: Refusal };

export interface PassInfo {
  passId: string;
  passCredits: number;
  fundedEver: boolean;
  createdAt: string;
  keys: { id: string; keyHint: string; createdAt: string; revokedAt: string | null }[];
}

export interface CreatedKey {
  /** Shown once, never stored. */
  key: string;
  keyId: string;
  keyHint: string;
  passId: string;
  createdAt: string;
}

export type IdempotencyBegin =
  | { state: 'new' }
  | { state: 'replay'; status: number; body: string }
  | { state: 'mismatch' }
  | { state: 'in_progress' };

export interface MetricsRow {
  channel: Channel;
  samples: number;
  totalMs: number;
  /** Of the samples, decisions served without a charge. */
  uncharged: number;
}

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
  /** The decision's processing time: one sample of `day`'s metrics for `channel`. */
  sample: { day: string; channel: Channel; ms: number };
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
}

/** What a temperature is fitted for: the main answer of each mode, and the sufficiency probe. */
export const CALIBRATION_TARGETS = ['choice', 'noul', 'score', 'sufficiency'] as const;
export type CalibrationTarget = (typeof CALIBRATION_TARGETS)[number];

/** A fitted temperature of one engine and model, for one target (`decide calibrate`). */
export interface Calibration {
  engine: string;
  model: string;
  target: CalibrationTarget;
  temperature: number;
  /** Readings it was fitted on, and held out to judge it. */
  fitted: number;
  heldOut: number;
  /** Expected calibration error of the held-out readings, before and after. */
  eceBefore: number;
  eceAfter: number;
  fittedAt: string;
}

/** The fitted temperatures, kept in the ledger so every server on it applies them. */
export interface Calibrations {
  /** Replaces the temperature of that engine, model and target. */
  save(calibration: Calibration): Promise<void>;
  /** Those of one engine and model, or all of them. */
  list(of?: { engine: string; model: string }): Promise<Calibration[]>;
  /** Removes those of one engine and model; returns how many. */
  reset(of: { engine: string; model: string }): Promise<number>;
}

export interface Store {
  readonly calibrations: Calibrations;

  /**
   * Called once by `decide serve` at start: releases reservations and drops
   * unfinished idempotency records left by a process that died mid-decision.
   * Returns how many reservations were released. SQLite (one server per file): all
   * of them. PostgreSQL (other servers may be live): only those past their expiry
   * (decision deadline + margin), which each server also sweeps every few seconds.
   */
  recoverInterrupted(): Promise<number>;

  createPass(): Promise<{ passId: string; createdAt: string }>;
  /** Adds a funding entry; throws if the pass does not exist or credits < 1. */
  fundPass(passId: string, credits: number, note?: string): Promise<{ passCredits: number }>;
  showPass(passId: string): Promise<PassInfo | null>;

  /** A new key linked to `passId`, or to a new pass when omitted. */
  createKey(passId?: string): Promise<CreatedKey>;
  /** The active key whose SHA-256 fingerprint this is, or null (unknown or revoked). */
  authenticate(fingerprint: Buffer): Promise<Caller | null>;
  /** Revokes an active key; null when it was not active. */
  revokeKey(keyId: string, now: Date): Promise<{ keyHint: string; revokedAt: string } | null>;

  usage(caller: Caller, day: string): Promise<{ freeUsed: number; passCredits: number }>;

  // --- The browser's side: passes verified once, keys created from a page. ---

  /**
   * The value stored under `name`, storing `initial` first when there is none (the
   * first writer wins, so servers sharing a database agree). Holds the pass cookie's
   * signing secret when the operator gives none.
   */
  setting(name: string, initial: string): Promise<string>;
  /**
   * A new pass, unless `ip` already created `perIpLimit` passes on `day` (0 = no
   * limit): then null, and nothing is written. The count and the pass move in one
   * transaction; only a fingerprint of the IP is stored.
   */
  createPassLimited(request: { ip: string; day: string; perIpLimit: number }): Promise<{ passId: string; createdAt: string } | null>;
  /**
   * A new key on `passId`, unless `ip` already created `perIpLimit` keys on `day`:
   * then null, the count unchanged, and a pass that holds nothing (no key ever, never
   * funded) removed, since it was made for this key and would stay empty. All of it
   * in one transaction; only a fingerprint of the IP is stored. Throws for an unknown pass.
   */
  createKeyLimited(request: { passId: string; ip: string; day: string; perIpLimit: number }): Promise<CreatedKey | null>;
  /** Revokes an active key of `passId`; null when the pass has no such active key. */
  revokePassKey(passId: string, keyId: string, now: Date): Promise<{ keyHint: string; revokedAt: string } | null>;
  /** The caller of an active key of `passId` (a web decision spends it), or null. */
  passCaller(passId: string, keyId: string): Promise<Caller | null>;
  /** Free decisions used on `day` by each key of `passId` (keys without any are left out). */
  passFreeUsage(passId: string, day: string): Promise<Record<string, number>>;

  /**
   * Takes what a decision costs, in one transaction: the key's free allowance for a
   * standard decision while it lasts (and the site's limits allow), else pass credits.
   * Decides 402/429 as docs/api.md's "Charges" says.
   */
  reserve(request: ReserveRequest, now: Date): Promise<ReserveOutcome>;
  /**
   * reserved → committed, and reports whether that charged. Idempotent: committing a
   * committed reservation again reports `charged: true` and writes nothing; one that was
   * released (or is unknown) stays so, reports `charged: false`, and is never charged.
   * With a `settlement`, its sample and answer are written in the same transaction
   * (also when nothing was charged: the decision was still served).
   */
  commit(reservationId: string, now: Date, settlement?: Settlement): Promise<CommitOutcome>;
  /** reserved → released, giving back exactly what it took. Idempotent. */
  release(reservationId: string, now: Date): Promise<void>;

  /** Records one successful decision's processing time. */
  recordSample(day: string, channel: Channel, ms: number): Promise<void>;
  metrics(day: string): Promise<MetricsRow[]>;

  /**
   * Idempotency records, scoped by key. A record older than 24 h counts as absent.
   * `begin` inserts a running record when none exists; `commit`'s settlement turns it
   * into the kept answer.
   */
  beginIdempotent(keyId: string, idemKey: string, requestHash: string, now: Date): Promise<IdempotencyBegin>;
  /** Drops a running record (the decision failed: only successes are stored). */
  abandonIdempotent(keyId: string, idemKey: string): Promise<void>;

  close(): Promise<void>;
}
