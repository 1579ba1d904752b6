import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  DecideError,
  keyFingerprint,
  isWellFormedKey,
  type DecisionRequest,
  type DecisionResponse,
  type KeyRevoked,
  type Metrics,
  type Usage,
} from '../contract/index.js';
import type { Debias } from '../decision/debias.js';
import type { Temperatures } from '../decision/temperature.js';
import { runDecision } from '../decision/run.js';
import type { Engine } from '../engine/engine.js';
import type { Caller, Channel, CommitOutcome, Limits, Settlement, Store } from '../ledger/store.js';
import { type Clock, nextUtcMidnight, secondsToMidnight, systemClock, utcDay } from './clock.js';
import { withDeadline } from './deadline.js';
import { GiveBack } from './give-back.js';
import { engineFailure, refusal } from './refusals.js';
import { metricsRecord } from './metrics.js';

export interface ServiceOptions {
  store: Store;
  engine: Engine;
  limits: Limits;
  /** One deadline for a whole decision, stress included. */
  engineTimeoutMs: number;
  /** Order debiasing of every decision (decision/debias.ts); none by default. */
  debias?: Debias;
  /** Temperatures fitted for this engine and model (decision/temperature.ts); none by default. */
  temperatures?: Temperatures;
  clock?: Clock;
  /** Decisions running at once before new ones get 429 `engine_busy`. */
  maxInFlight?: number;
  /** Where the operator is told what they should know (one line each, never a key); stderr by default. */
  warn?: (line: string) => void;
}

export interface DecideContext {
  caller: Caller;
  channel: Channel;
  ip: string;
  idempotencyKey?: string;
  /** `performance.now()` when the request arrived, so processingMs covers parsing too. */
  startedAt?: number;
}

export interface DecideAnswer {
  response: DecisionResponse;
  /** The body exactly as first answered: a replay sends these bytes again. */
  json: string;
  replayed: boolean;
}

/** Every channel (HTTP, MCP, web) makes decisions through this one path. */
export class DecisionService {
  readonly limits: Limits;
  private readonly store: Store;
  private readonly engine: Engine;
  private readonly clock: Clock;
  private readonly engineTimeoutMs: number;
  private readonly debias: Debias;
  private readonly temperatures: Temperatures;
  private readonly maxInFlight: number;
  private readonly warn: (line: string) => void;
  private inFlight = 0;
  private readonly giveBack: GiveBack;

  constructor(options: ServiceOptions) {
    this.store = options.store;
    this.engine = options.engine;
    this.limits = options.limits;
    this.clock = options.clock ?? systemClock;
    this.engineTimeoutMs = options.engineTimeoutMs;
    this.debias = options.debias ?? 'none';
    this.temperatures = options.temperatures ?? {};
    this.maxInFlight = options.maxInFlight ?? 512;
    this.warn = options.warn ?? ((line) => void process.stderr.write(`decide: ${line}\n`));
    this.giveBack = new GiveBack(this.warn);
  }

  now(): Date {
    return this.clock();
  }

  /** The caller a bearer key stands for, or null; malformed keys never reach the store. */
  async authenticate(key: string): Promise<Caller | null> {
    if (!isWellFormedKey(key)) return null;
    return this.store.authenticate(keyFingerprint(key));
  }

  async decide(request: DecisionRequest, context: DecideContext): Promise<DecideAnswer> {
    const startedAt = context.startedAt ?? performance.now();
    const idem = context.idempotencyKey;
    if (idem !== undefined) {
      const requestHash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
      const begun = await this.store.beginIdempotent(context.caller.keyId, idem, requestHash, this.now());
      if (begun.state === 'replay') {
        return { response: JSON.parse(begun.body), json: begun.body, replayed: true };
      }
      if (begun.state === 'mismatch') {
        throw new DecideError(
          'idempotency_key_reused',
          'Idempotency-Key was already used with a different request body',
        );
      }
      if (begun.state === 'in_progress') {
        throw new DecideError(
          'idempotency_in_progress',
          'a request with this Idempotency-Key is still running; retry when it has finished',
          1,
        );
      }
    }
    try {
      // The answer is kept for the Idempotency-Key by the commit itself, in its transaction.
      return await this.charged(request, context, startedAt);
    } catch (error) {
      if (idem !== undefined) {
        const { keyId, keyHint } = context.caller;
        await this.giveBack.soon(`give up the Idempotency-Key record of key ${keyHint}`, () => this.store.abandonIdempotent(keyId, idem), error);
      }
      throw error;
    }
  }

  /**
   * Reserve → run → commit, or release on any failure, before the error is answered.
   * The commit writes the charge, the metrics sample and the answer kept for the
   * Idempotency-Key in one transaction: a process that dies before it leaves nothing
   * charged (the retry runs afresh), one that dies after it leaves an answer to replay.
   */
  private async charged(request: DecisionRequest, context: DecideContext, startedAt: number): Promise<DecideAnswer> {
    if (this.inFlight >= this.maxInFlight) {
      throw new DecideError('engine_busy', 'the decision engine is saturated; retry shortly', 1);
    }
    const now = this.now();
    const day = utcDay(now);
    const reserved = await this.store.reserve(
      { caller: context.caller, depth: request.depth, ip: context.ip, day },
      now,
    );
    if (!reserved.ok) throw refusal(reserved.code, request.depth, now, this.limits);
    const { reservation } = reserved;

    this.inFlight++;
    let outcome;
    const release = () => this.store.release(reservation.id, this.now());
    const releasing = `release reservation ${reservation.id} (${reservation.kind}, ${reservation.cost})`;
    try {
      outcome = await withDeadline(this.engineTimeoutMs, (signal) =>
        runDecision(request, this.engine, { signal, debias: this.debias, temperatures: this.temperatures }),
      );
    } catch (error) {
      await this.giveBack.soon(releasing, release);
      throw engineFailure(error);
    } finally {
      this.inFlight--;
    }

    const processingMs = Math.max(0, Math.round(performance.now() - startedAt));
    let response: DecisionResponse | undefined;
    let json = '';
    const settlement: Settlement = {
      sample: { day, channel: context.channel, ms: processingMs },
      idempotency:
        context.idempotencyKey === undefined ? undefined : { keyId: context.caller.keyId, idemKey: context.idempotencyKey },
      answer: (committed, apiRow) => {
        const api = metricsRecord(day, [apiRow]).api;
        response = {
          mode: request.mode,
          question: request.question,
          result: outcome.result,
          signal: outcome.signal,
          contextSufficiency: outcome.contextSufficiency,
          model: outcome.model,
          inputTokens: outcome.inputTokens,
          evaluatedAt: this.now().toISOString(),
          // Not charged after all: what the caller holds now, not what the reservation took, and said so.
          access: committed.charged ? reserved.access : { ...(committed.access ?? reserved.access), charged: false },
          stress: outcome.stress,
          timing: {
            processingMs,
            averageMsToday: api.meanMs,
            samplesToday: api.samples === 0 ? null : api.samples,
          },
        };
        json = JSON.stringify(response);
        return json;
      },
    };
    let committed: CommitOutcome;
    try {
      committed = await this.store.commit(reservation.id, this.now(), settlement);
    } catch (error) {
      // Nothing of the commit was written: give the charge back now rather than at
      // expiry or the next start (a no-op, should it have committed after all). With
      // the ledger known to be unavailable, at once in the background.
      await this.giveBack.soon(releasing, release, error);
      throw error;
    }
    if (!committed.charged) {
      this.warn(
        `served a decision without a charge: its reservation ${reservation.id} (${reservation.kind}, ${reservation.cost}, key ` +
          `${context.caller.keyHint}) expired and was released before the decision finished; ` +
          'raise DECIDE_EXPIRY_MARGIN_MS if this server stalls that long',
      );
    }
    if (!response) throw new Error('the ledger committed a decision without asking for its answer');
    return { response, json, replayed: false };
  }

  async usage(caller: Caller): Promise<Usage> {
    const now = this.now();
    const { freeUsed, passCredits } = await this.store.usage(caller, utcDay(now));
    const freeLimit = this.limits.freePerKey;
    return {
      day: utcDay(now),
      freeLimit,
      freeUsed,
      freeRemaining: Math.max(0, freeLimit - freeUsed),
      passCredits,
      resetsAt: nextUtcMidnight(now).toISOString(),
    };
  }

  async revoke(caller: Caller): Promise<KeyRevoked> {
    const revoked = await this.store.revokeKey(caller.keyId, this.now());
    // Revoked between authentication and now: the same answer as any unknown key.
    if (!revoked) throw new DecideError('unauthorized', 'the API key is missing, unknown or revoked');
    return { revoked: true, ...revoked };
  }

  async metrics(now = this.now()): Promise<Metrics> {
    const day = utcDay(now);
    return metricsRecord(day, await this.store.metrics(day));
  }

  secondsToMidnight(): number {
    return secondsToMidnight(this.now());
  }
}
