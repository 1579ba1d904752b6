import type { Calibrations } from './calibrations.js';
import type { Charges } from './charges.js';
import type { DecisionLog } from './decisions.js';
import type { Evaluations } from './evaluations.js';
import type { IdempotencyRecords } from './idempotency.js';
import type { Keys } from './keys.js';
import type { DailyMetrics } from './metrics.js';
import type { Passes } from './passes.js';
import type { Web } from './web.js';

export * from './calibrations.js';
export type * from './charges.js';
export * from './decisions.js';
export type * from './evaluations.js';
export type * from './idempotency.js';
export type * from './keys.js';
export type * from './metrics.js';
export type * from './passes.js';
export type * from './usage.js';
export type * from './web.js';

/**
 * The ledger: keys, passes, the free allowance, credits, idempotency records,
 * metrics, calibrations, eval summaries, the site's free limits and the optional decision log. Two implementations:
 * SQLite (default, one file) and PostgreSQL (several servers). Each is an
 * assembly of one module per concern, each implementing its interface here.
 *
 * Time: every method whose answer or writes depend on the time takes `now: Date`
 * from its caller, its last required parameter; a UTC day (the free allowance's,
 * the metrics', the per-IP limits') is derived from it inside the ledger. Only the
 * store's own upkeep (`recoverInterrupted`, the sweeps, SQLite's lease) keeps a clock:
 * the process's for SQLite, the database's for PostgreSQL, which its servers share.
 */
export interface Store {
  readonly keys: Keys;
  readonly passes: Passes;
  readonly web: Web;
  readonly charges: Charges;
  readonly idempotency: IdempotencyRecords;
  readonly metrics: DailyMetrics;
  readonly calibrations: Calibrations;
  readonly evaluations: Evaluations;
  readonly decisions: DecisionLog;

  /**
   * Called once by `decide serve` at start: releases reservations and drops
   * unfinished idempotency records left by a process that died mid-decision.
   * Returns how many reservations were released. SQLite (one server per file): all
   * of them. PostgreSQL (other servers may be live): only those past their expiry
   * (decision deadline + margin), which each server also sweeps every few seconds.
   */
  recoverInterrupted(): Promise<number>;

  /**
   * Resolves when the ledger takes a write now (readiness, `GET /readyz`), without
   * writing anything: SQLite takes its write lock, PostgreSQL checks it is not a
   * read-only standby. Throws, like any call, when it cannot.
   */
  ping(): Promise<void>;

  close(): Promise<void>;
}

export interface Limits {
  /** Free standard decisions per key per UTC day (20). */
  freePerKey: number;
  /** Free decisions per client IP per UTC day; 0 = no limit. */
  freePerIp: number;
  /** Free decisions over the whole site per UTC day; 0 = no limit. */
  freePerSite: number;
}
