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
import { runDecision } from '../decision/run.js';
import type { Engine } from '../engine/engine.js';
import type { Caller, Channel, Limits, Store } from '../ledger/store.js';
import { type Clock, nextUtcMidnight, secondsToMidnight, systemClock, utcDay } from './clock.js';
import { engineFailure, refusal } from './refusals.js';
import { metricsRecord } from './metrics.js';

export interface ServiceOptions {
  store: Store;
  engine: Engine;
  limits: Limits;
  /** One deadline for a whole decision, stress included. */
  engineTimeoutMs: number;
  clock?: Clock;
  /** Decisions running at once before new ones get 429 `engine_busy`. */
  maxInFlight?: number;
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
  private readonly maxInFlight: number;
  private inFlight = 0;

  constructor(options: ServiceOptions) {
    this.store = options.store;
    this.engine = options.engine;
    this.limits = options.limits;
    this.clock = options.clock ?? systemClock;
    this.engineTimeoutMs = options.engineTimeoutMs;
    this.maxInFlight = options.maxInFlight ?? 512;
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
    const requestHash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
    if (idem !== undefined) {
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
      const answer = await this.charged(request, context, startedAt);
      if (idem !== undefined) await this.store.finishIdempotent(context.caller.keyId, idem, 200, answer.json);
      return answer;
    } catch (error) {
      if (idem !== undefined) await this.store.abandonIdempotent(context.caller.keyId, idem);
      throw error;
    }
  }

  /** Reserve → run → commit, or release on any failure, before the error is answered. */
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

    this.inFlight++;
    let outcome;
    try {
      outcome = await runDecision(request, this.engine, { signal: AbortSignal.timeout(this.engineTimeoutMs) });
    } catch (error) {
      await this.store.release(reserved.reservation.id, this.now());
      throw engineFailure(error);
    } finally {
      this.inFlight--;
    }
    await this.store.commit(reserved.reservation.id, this.now());

    const processingMs = Math.max(0, Math.round(performance.now() - startedAt));
    await this.store.recordSample(day, context.channel, processingMs);
    const api = (await this.metrics(now)).api;
    const response: DecisionResponse = {
      mode: request.mode,
      question: request.question,
      result: outcome.result,
      signal: outcome.signal,
      contextSufficiency: outcome.contextSufficiency,
      model: outcome.model,
      inputTokens: outcome.inputTokens,
      evaluatedAt: this.now().toISOString(),
      access: reserved.access,
      stress: outcome.stress,
      timing: {
        processingMs,
        averageMsToday: api.meanMs,
        samplesToday: api.samples === 0 ? null : api.samples,
      },
    };
    return { response, json: JSON.stringify(response), replayed: false };
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
