import { DEFAULT_DECISION_RETENTION_DAYS, DEFAULT_ENGINE_TIMEOUT_MS, DEFAULT_EXPIRY_MARGIN_MS } from '../config/variables.js';
import type { Access } from '../contract/index.js';
import type { Calibration, Limits, MetricsRow, Refusal, Reservation, ReserveOutcome, ReserveRequest } from './store.js';
import { isKeyName, KEY_NAME_RULE } from '../contract/key-name.js';
import type { Channel } from '../contract/caller.js';

/**
 * The rules both ledger implementations (SQLite and PostgreSQL) apply the same way;
 * the store conformance suite (test/ledger/store-suite.ts) holds them to it.
 */

/** What a decision costs: one free unit or credit at standard depth, five credits for stress. */
export const STANDARD_COST = 1;
export const STRESS_COST = 5;

/** How long a stored answer can be replayed (docs/api.md, "Idempotency"). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export const CHANNELS: readonly Channel[] = ['api', 'web'];

/** The units of one reserve: one unless several standard decisions are paid together. */
export function unitsOf(request: ReserveRequest): number {
  const units = request.units ?? 1;
  if (!Number.isSafeInteger(units) || units < 1) throw new Error('A reservation holds a positive integer number of units.');
  if (units > 1 && request.depth !== 'standard') throw new Error('Only standard decisions are reserved several at a time.');
  return units;
}

export function refuse(code: Refusal): ReserveOutcome {
  return { ok: false, code };
}

/**
 * Thrown inside a reserve of several units when one of them cannot be paid: the
 * transaction rolls back the units already taken, and the refusal is the answer.
 */
export class UnitRefused extends Error {
  constructor(readonly code: Refusal) {
    super(`a unit of the reservation was refused (${code})`);
  }
}

/**
 * The reservation of several units taken in turn: `id` names them together, `access`
 * is what the caller holds after the last one (free units come first, so any credits
 * taken show as the pass's balance).
 */
export function groupReservation(id: string, units: ReserveOutcome[]): ReserveOutcome {
  let kind: Reservation['kind'] = 'free';
  let access: Access | undefined;
  for (const unit of units) {
    if (!unit.ok) throw new UnitRefused(unit.code);
    if (unit.reservation.kind === 'credits') kind = 'credits';
    access = unit.access;
  }
  if (!access) throw new Error('A reservation holds at least one unit.');
  return { ok: true, reservation: { id, kind, cost: units.length }, access };
}

/**
 * How many units of a group of `size` a commit keeps: `used` (all when absent), at
 * least one; a single reservation is one unit.
 */
export function unitsKept(size: number, used: number | undefined): number {
  const kept = used ?? size;
  if (!Number.isSafeInteger(kept) || kept < 1 || kept > size) {
    throw new Error(`A commit keeps 1 to ${size} units of its reservation, not ${String(used)}.`);
  }
  return kept;
}

/** A row of the `charges` table as both stores read it back to settle it. */
export interface ChargeRow {
  kind: 'free' | 'credits';
  cost: number;
  key_id: string;
  pass_id: string;
  day: string;
  ip_fingerprint: Buffer | null;
}

/**
 * When what a server holds counts as left behind. A reservation, and a running
 * idempotency record, expires the decision deadline plus a margin after it is
 * taken: no live server holds one that long, so a sweep may give it back.
 */
export interface ExpiryOptions {
  /** The deadline of one decision (`DECIDE_ENGINE_TIMEOUT_MS`, default 30000). */
  decisionDeadlineMs?: number;
  /** Slack past the deadline for a slow commit (a busy database, a pause): default 60000. */
  expiryMarginMs?: number;
  /** How often a serving store sweeps; default 5000, 0 = never (only at start). */
  sweepIntervalMs?: number;
  /** How long the decision log keeps an entry (`DECIDE_DECISION_LOG_RETENTION_DAYS`); default 30. */
  decisionRetentionDays?: number;
}

export const DEFAULT_DECISION_DEADLINE_MS = DEFAULT_ENGINE_TIMEOUT_MS;
export const DEFAULT_SWEEP_INTERVAL_MS = 5_000;

/** The lifetime of a reservation, how often to sweep and how long a log entry lives, checked. */
export function checkExpiry(options: ExpiryOptions): { expiryMs: number; sweepIntervalMs: number; retentionDays: number } {
  const deadline = options.decisionDeadlineMs ?? DEFAULT_DECISION_DEADLINE_MS;
  const margin = options.expiryMarginMs ?? DEFAULT_EXPIRY_MARGIN_MS;
  const sweep = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
  const retentionDays = options.decisionRetentionDays ?? DEFAULT_DECISION_RETENTION_DAYS;
  for (const [name, value, min] of [
    ['decisionDeadlineMs', deadline, 1],
    ['expiryMarginMs', margin, 0],
    ['sweepIntervalMs', sweep, 0],
    ['decisionRetentionDays', retentionDays, 1],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}.`);
  }
  return { expiryMs: deadline + margin, sweepIntervalMs: sweep, retentionDays };
}

/** A `metrics` row as both stores read it. */
export interface MetricsColumns {
  samples: number;
  total_ms: number;
  uncharged: number;
}

/** A channel's figures of the day; zeros when it has no row yet. */
export function metricsRow(channel: Channel, row: MetricsColumns | undefined): MetricsRow {
  return { channel, samples: row?.samples ?? 0, totalMs: row?.total_ms ?? 0, uncharged: row?.uncharged ?? 0 };
}

export function checkLimits(limits: Limits): Limits {
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`Limit ${name} must be a non-negative integer.`);
  }
  return { ...limits };
}

export function checkSample(channel: Channel, ms: number): void {
  if (!CHANNELS.includes(channel)) throw new Error(`Unknown channel ${String(channel)}.`);
  if (!Number.isFinite(ms) || ms < 0) throw new Error('A sample must be a non-negative number of milliseconds.');
}

export function checkFunding(credits: number): void {
  if (!Number.isSafeInteger(credits) || credits < 1) throw new Error('Credits must be a positive integer.');
}

export function checkPerIpLimit(perIpLimit: number): void {
  if (!Number.isSafeInteger(perIpLimit) || perIpLimit < 0) throw new Error('A creation limit per IP must be a non-negative integer.');
}

/** Setting names: short, plain identifiers (they are never user input, but keep them tidy). */
export function checkSettingName(name: string): void {
  if (!/^[a-z][a-z0-9_.]{0,62}$/.test(name)) throw new Error(`Bad setting name ${JSON.stringify(name)}.`);
}

/** A `calibrations` row as both stores read it back (`fitted_at`: SQLite text, PostgreSQL timestamptz). */
export interface CalibrationRow {
  engine: string;
  model: string;
  debias: Calibration['debias'];
  target: Calibration['target'];
  temperature: number;
  /** JSON text of the offsets, or null. */
  offsets: string | null;
  fitted: number;
  held_out: number;
  ece_before: number;
  ece_after: number;
  fitted_at: string | Date;
}

export function calibrationOf(r: CalibrationRow): Calibration {
  return {
    engine: r.engine,
    model: r.model,
    debias: r.debias,
    target: r.target,
    temperature: r.temperature,
    offsets: r.offsets === null ? null : (JSON.parse(r.offsets) as number[]),
    fitted: r.fitted,
    heldOut: r.held_out,
    eceBefore: r.ece_before,
    eceAfter: r.ece_after,
    fittedAt: r.fitted_at instanceof Date ? r.fitted_at.toISOString() : r.fitted_at,
  };
}

export function checkCalibration(c: Pick<Calibration, 'temperature' | 'offsets' | 'fitted' | 'heldOut' | 'eceBefore' | 'eceAfter'>): void {
  if (!Number.isFinite(c.temperature) || c.temperature <= 0) throw new Error('A temperature must be a positive number.');
  if (c.offsets !== null && (!Array.isArray(c.offsets) || c.offsets.length > 3 || !c.offsets.every(Number.isFinite)))
    throw new Error('Offsets are up to three finite numbers.');
  for (const n of [c.fitted, c.heldOut])
    if (!Number.isSafeInteger(n) || n < 0) throw new Error('Reading counts must be non-negative integers.');
  for (const e of [c.eceBefore, c.eceAfter]) if (!Number.isFinite(e) || e < 0 || e > 1) throw new Error('An ECE lies in [0, 1].');
}

/** A key's name (contract/key-name.ts); throws naming the rule. */
export function checkKeyName(name: string | undefined): void {
  if (name !== undefined && !isKeyName(name)) throw new RangeError(`A key name must be ${KEY_NAME_RULE}.`);
}
