import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Access, ServiceError, type Timing } from '../contract/index.js';
import type { CommitOutcome, DecisionEntry, Limits, Settlement, Store } from '../ledger/store.js';
import type { Admission, Slot } from './admission.js';
import { type Allowance, allowanceAfter } from './allowance.js';
import type { Clock } from './clock.js';
import { withDeadline } from './deadline.js';
import { GiveBack } from './give-back.js';
import { type LogFacts, logEntry } from './log-entry.js';
import { metricsRecord } from './metrics.js';
import { engineFailure, refusal, revokedKey } from './refusals.js';
import type { Caller, Channel } from '../contract/caller.js';
import type { Depth } from '../contract/decision.js';
import type { DecisionLogLevel, Door } from '../contract/decision-log.js';
import { utcDay } from '../contract/utc-day.js';

export interface DecideContext {
  caller: Caller;
  channel: Channel;
  ip: string;
  idempotencyKey?: string;
  /** `performance.now()` when the request arrived, so processingMs covers parsing too. */
  startedAt?: number;
  /** The HTTP request's id (http/request-id.ts), handed to an engine that passes it on. */
  requestId?: string;
  /** The door the decision log names, where it is not the channel: `mcp`, which rides on the API's. */
  door?: Door;
}

/** What the commit settled, for the answer to say. */
export interface Settled {
  /** What the caller holds, as the reservation left it (or, not charged after all, now). */
  access: Access;
  timing: Timing;
  evaluatedAt: string;
}

/**
 * A request that the engine answers and the ledger charges: a decision, or the
 * questions of a System One request. `R` is its answer, `T` what the engine made.
 */
export interface PaidWork<R, T> {
  /** What kind of request it is, so that an Idempotency-Key reused on another route never replays. */
  route: string;
  /** The parsed request: a retry with the same Idempotency-Key must send the same. */
  request: unknown;
  /** What that sameness is judged on, when `JSON.stringify({ route, request })` would miss part of its meaning (key order). */
  fingerprint?: string;
  depth: Depth;
  /** Standard decisions it costs (one per question), reserved together; 1 by default. */
  units?: number;
  /** The engine's part, under the deadline; `units`: how many it used (the rest are given back). */
  run(signal: AbortSignal): Promise<{ made: T; units: number }>;
  /** The answer, once the commit knows what it charged: synchronous, and must not throw. */
  respond(made: T, settled: Settled): R;
  /** The answer's JSON, when `JSON.stringify` would not write it as meant (key order); must not throw. */
  serialize?(response: R): string;
  /** What the decision log keeps of the answer (its body as `json`); without it the work is not logged. Must not throw. */
  logFacts?(response: R, json: string): LogFacts;
}

export interface PaidAnswer<R> {
  response: R;
  /** The body exactly as first answered: a replay sends these bytes again. */
  json: string;
  replayed: boolean;
  /** What the caller holds after it (not on a replay). */
  access?: Access;
  /** The free allowance as this answer leaves it, for every channel to announce alike. */
  allowance: Allowance;
}

export interface PaidOptions {
  store: Store;
  limits: Limits;
  clock: Clock;
  /** One deadline for the engine's whole part. */
  engineTimeoutMs: number;
  /** The step in front of the engine (admission.ts): a slot, a wait for one, or 429 before anything is charged. */
  admission: Admission;
  warn: (line: string) => void;
  /** DECIDE_DECISION_LOG: what the commit logs of each decision; `off` writes nothing. */
  decisionLog: DecisionLogLevel;
}

/**
 * The one path every paid request takes: its Idempotency-Key, then reserve → run →
 * commit, or release on any failure before the error is answered. The commit writes
 * the charge, the metrics sample and the answer kept for the Idempotency-Key in one
 * transaction: a process that dies before it leaves nothing charged (the retry runs
 * afresh), one that dies after it leaves an answer to replay.
 */
export class PaidRequests {
  private readonly giveBack: GiveBack;

  constructor(private readonly options: PaidOptions) {
    this.giveBack = new GiveBack(options.warn);
  }

  /** Requests with the engine now, and waiting for it. */
  get engineLoad(): { running: number; waiting: number } {
    return this.options.admission.load;
  }

  async run<R, T>(work: PaidWork<R, T>, context: DecideContext): Promise<PaidAnswer<R>> {
    const startedAt = context.startedAt ?? performance.now();
    const { store } = this.options;
    // Under overload a refusal must be cheap: what admission would shed is refused before any ledger write.
    this.options.admission.refuseLate(work.depth);
    const idem = context.idempotencyKey;
    if (idem !== undefined) {
      // Decisions hash their request alone, as they always have, so answers kept before stay replayable.
      const hashed =
        work.fingerprint ?? JSON.stringify(work.route === 'decisions' ? work.request : { route: work.route, request: work.request });
      const requestHash = createHash('sha256').update(hashed).digest('hex');
      const begun = await store.idempotency.begin(context.caller.keyId, idem, requestHash, this.options.clock());
      if (begun.state === 'revoked') throw revokedKey();
      if (begun.state === 'replay') {
        const allowance = allowanceAfter(undefined, work.depth, this.options.limits, this.options.clock());
        return { response: JSON.parse(begun.body), json: begun.body, replayed: true, allowance };
      }
      if (begun.state === 'mismatch') {
        throw new ServiceError('idempotency_key_reused', 'Idempotency-Key was already used with a different request body');
      }
      if (begun.state === 'in_progress') {
        throw new ServiceError(
          'idempotency_in_progress',
          'a request with this Idempotency-Key is still running; retry when it has finished',
          1,
        );
      }
    }
    try {
      return await this.charged(work, context, startedAt);
    } catch (error) {
      if (idem !== undefined) {
        const { keyId, keyHint } = context.caller;
        await this.giveBack.soon(
          `give up the Idempotency-Key record of key ${keyHint}`,
          () => store.idempotency.abandon(keyId, idem),
          error,
        );
      }
      throw error;
    }
  }

  /**
   * Admission first, so a request refused for a busy engine (429) is charged nothing;
   * then the reservation and the engine's run, the reservation given back if the run
   * fails. The slot is held only while the engine works.
   */
  private async admitted<R, T>(work: PaidWork<R, T>, context: DecideContext, deadline: AbortSignal) {
    const { store, clock, limits } = this.options;
    let slot: Slot;
    try {
      slot = await this.options.admission.enter(work.depth, deadline);
    } catch (error) {
      throw engineFailure(error);
    }
    try {
      const now = clock();
      const units = work.units ?? 1;
      const reserved = await store.charges.reserve({ caller: context.caller, depth: work.depth, ip: context.ip, units }, now);
      if (!reserved.ok) throw refusal(reserved.code, work.depth, now, limits, units);
      const { reservation } = reserved;
      const release = () => store.charges.release(reservation.id, clock());
      const releasing = `release reservation ${reservation.id} (${reservation.kind}, ${reservation.cost})`;
      try {
        const ran = await work.run(deadline);
        return { reserved, ran, reservedAt: now, units, release, releasing };
      } catch (error) {
        await this.giveBack.soon(releasing, release);
        throw engineFailure(error);
      }
    } finally {
      slot.leave();
    }
  }

  private async charged<R, T>(work: PaidWork<R, T>, context: DecideContext, startedAt: number): Promise<PaidAnswer<R>> {
    const { store, clock } = this.options;
    // One deadline, started before admission, so time spent waiting for the engine counts against it;
    // its timer is cleared as soon as the engine's part ends (deadline.ts), not left
    // pending for the whole deadline as AbortSignal.timeout's would be.
    const { reserved, ran, reservedAt, units, release, releasing } = await withDeadline(this.options.engineTimeoutMs, (deadline) =>
      this.admitted(work, context, deadline),
    );
    const { reservation } = reserved;
    const level = this.options.decisionLog;
    const logFacts = work.logFacts;

    const processingMs = Math.max(0, Math.round(performance.now() - startedAt));
    let response: R | undefined;
    let access: Access | undefined;
    let json = '';
    let entry: DecisionEntry | undefined;
    const settlement: Settlement = {
      sample: { reservedAt, channel: context.channel, ms: processingMs },
      idempotency: context.idempotencyKey === undefined ? undefined : { keyId: context.caller.keyId, idemKey: context.idempotencyKey },
      units: units > 1 ? ran.units : undefined,
      answer: (committed, apiRow) => {
        const api = metricsRecord(utcDay(reservedAt), [apiRow]).api;
        // Not charged after all: what the caller holds now, not what the reservation took, and said so.
        access = committed.charged ? reserved.access : { ...(committed.access ?? reserved.access), charged: false };
        response = work.respond(ran.made, {
          access,
          timing: { processingMs, averageMsToday: api.meanMs, samplesToday: api.samples === 0 ? null : api.samples },
          evaluatedAt: clock().toISOString(),
        });
        json = work.serialize ? work.serialize(response) : JSON.stringify(response);
        return json;
      },
      logged:
        level === 'off' || !logFacts
          ? undefined
          : (committed) => (entry = logEntry(level, logFacts(response as R, json), context, reservation, committed)),
      // The commit stands without its entry: a decision is never served free for the log's sake.
      unlogged: (error) =>
        this.options.warn(
          `the decision log did not keep a decision (${context.door ?? context.channel}, ${entry?.mode ?? work.route}, ` +
            `key ${context.caller.keyHint}): ${oneLine(error)}; the decision was served and charged all the same`,
        ),
    };
    let committed: CommitOutcome;
    try {
      committed = await store.charges.commit(reservation.id, clock(), settlement);
    } catch (error) {
      // Nothing of the commit was written: give the charge back now rather than at
      // expiry or the next start (a no-op, should it have committed after all). With
      // the ledger known to be unavailable, at once in the background.
      await this.giveBack.soon(releasing, release, error);
      throw error;
    }
    if (!committed.charged) {
      this.options.warn(
        `served a decision without a charge: its reservation ${reservation.id} (${reservation.kind}, ${reservation.cost}, key ` +
          `${context.caller.keyHint}) expired and was released before the decision finished; ` +
          'raise DECIDE_EXPIRY_MARGIN_MS if this server stalls that long',
      );
    }
    if (!response) throw new Error('the ledger committed a decision without asking for its answer');
    return { response, json, replayed: false, access, allowance: allowanceAfter(access, work.depth, this.options.limits, clock()) };
  }
}

/**
 * What the store said, as one line of the operator's log: its message only (a
 * database's error detail can quote the row, the text asked with it).
 */
function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim();
}
