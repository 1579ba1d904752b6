import {
  keyFingerprint,
  isWellFormedKey,
  type DecisionRequest,
  type DecisionResponse,
  type KeyRevoked,
  type Metrics,
  type Usage,
} from '../contract/index.js';
import type { Scalings } from '../decision/scaling.js';
import { runDecision } from '../decision/run.js';
import type { Engine } from '../engine/engine.js';
import { KeyNotActive } from '../ledger/keys.js';
import type { Limits, Store } from '../ledger/store.js';
import type { SystemOneRequest, SystemOneResponse } from '../contract/systemone.js';
import { type Clock, nextUtcMidnight, secondsToMidnight, systemClock } from './clock.js';
import { Admission } from './admission.js';
import { decisionFacts } from './log-entry.js';
import { metricsRecord } from './metrics.js';
import { inCallersWords, revokedKey } from './refusals.js';
import { type DecideContext, type PaidAnswer, PaidRequests } from './paid.js';
import { systemOneWork } from './systemone.js';
import { type DecisionLabels, Telemetry } from '../telemetry/metrics.js';
import type { Caller } from '../contract/caller.js';
import { utcDay } from '../contract/utc-day.js';
import type { Debias } from '../contract/debias.js';
import type { DecisionLogLevel } from '../contract/decision-log.js';

export type { DecideContext } from './paid.js';

export interface ServiceOptions {
  store: Store;
  engine: Engine;
  limits: Limits;
  /** One deadline for a whole decision, stress included. */
  engineTimeoutMs: number;
  /** Order debiasing of every decision (decision/debias.ts); none by default. */
  debias?: Debias;
  /** Scalings fitted for this engine and model (decision/scaling.ts); none by default. */
  scalings?: Scalings;
  clock?: Clock;
  /** Decisions running (and waiting for an engine that declares its capacity) before new ones get 429 `engine_busy`. */
  maxInFlight?: number;
  /** Where the operator is told what they should know (one line each, never a key); stderr by default. */
  warn?: (line: string) => void;
  /** The metrics `GET /metrics` serves (telemetry/metrics.ts); one of its own by default. */
  telemetry?: Telemetry;
  /** DECIDE_DECISION_LOG: what is logged of each decision (ledger/decisions.ts); off by default. */
  decisionLog?: DecisionLogLevel;
  /** Sentences saying whether the model was measured (`decide eval`, `decide calibrate`), read from the ledger at start; `GET /v1/models` adds them to its description. */
  measurement?: string;
}

export type DecideAnswer = PaidAnswer<DecisionResponse>;

/** Every channel (HTTP, MCP, web) makes decisions through this one path. */
export class DecisionService {
  readonly limits: Limits;
  /** The engine every answer comes from (`local`, `openai`, …) and the model it names. */
  readonly engineName: string;
  readonly model: string;
  /** What this service measures, for `GET /metrics`. */
  readonly telemetry: Telemetry;
  /** What the decision log keeps of each decision; the pass page shows it unless `off`. */
  readonly decisionLog: DecisionLogLevel;
  /** Whether the model was measured, as `GET /v1/models` says it; empty when not told. */
  readonly measurement: string;
  private readonly store: Store;
  private readonly engine: Engine;
  private readonly clock: Clock;
  private readonly debias: Debias;
  private readonly scalings: Scalings;
  private readonly paid: PaidRequests;

  constructor(options: ServiceOptions) {
    this.telemetry = options.telemetry ?? new Telemetry();
    // Measured from outside: the engine's calls and the ledger's charges, timed as they pass.
    this.store = this.telemetry.measureLedger(options.store);
    this.engine = this.telemetry.measureEngine(options.engine);
    this.engineName = options.engine.name;
    this.model = options.engine.model;
    this.limits = options.limits;
    this.clock = options.clock ?? systemClock;
    this.debias = options.debias ?? 'none';
    this.scalings = options.scalings ?? {};
    this.decisionLog = options.decisionLog ?? 'off';
    this.measurement = options.measurement ?? '';
    const maxInFlight = options.maxInFlight ?? 512;
    this.paid = new PaidRequests({
      store: this.store,
      limits: options.limits,
      clock: this.clock,
      engineTimeoutMs: options.engineTimeoutMs,
      admission: new Admission({
        // A local engine's capacity; else a provider's pool, whose calls beyond it would only wait there.
        slots: options.engine.capacity ?? options.engine.connections ?? maxInFlight,
        queue: options.engine.capacity !== undefined || options.engine.connections !== undefined,
        remote: options.engine.capacity === undefined,
        deadlineMs: options.engineTimeoutMs,
        maxInFlight,
      }),
      warn: options.warn ?? ((line) => void process.stderr.write(`decide: ${line}\n`)),
      decisionLog: this.decisionLog,
    });
    this.telemetry.gauge('decide_engine_running', 'Decisions with the engine now.', () => this.engineLoad.running);
    this.telemetry.gauge('decide_engine_waiting', 'Decisions waiting for the engine now.', () => this.engineLoad.waiting);
  }

  /** Decisions with the engine now, and waiting for it (service/admission.ts). */
  get engineLoad(): { running: number; waiting: number } {
    return this.paid.engineLoad;
  }

  now(): Date {
    return this.clock();
  }

  /** The caller a bearer key stands for, or null; malformed keys never reach the store. */
  async authenticate(key: string): Promise<Caller | null> {
    if (!isWellFormedKey(key)) return null;
    return this.store.keys.authenticate(keyFingerprint(key));
  }

  /**
   * A paid request, counted in the metrics by its outcome; once it succeeded, the
   * key's use is noted: a key's last use is the last thing it was accepted for (a
   * decision, its usage), on any channel. In memory only; the store writes last uses
   * in batches (ledger/last-use.ts).
   */
  private async finished<R>(labels: DecisionLabels, units: number, caller: Caller, work: Promise<PaidAnswer<R>>): Promise<PaidAnswer<R>> {
    let answer: PaidAnswer<R>;
    try {
      answer = await work;
    } catch (error) {
      this.telemetry.decided(labels, { error });
      throw error;
    }
    this.telemetry.decided(labels, { access: answer.access, units, replayed: answer.replayed });
    this.store.keys.noteUse(caller.keyId, this.now());
    return answer;
  }

  async decide(request: DecisionRequest, context: DecideContext): Promise<DecideAnswer> {
    const labels = { channel: context.channel, mode: request.mode, depth: request.depth };
    return this.finished(
      labels,
      1,
      context.caller,
      this.paid.run(
        {
          route: 'decisions',
          request,
          depth: request.depth,
          run: async (signal) => ({
            made: await runDecision(request, this.engine, {
              signal,
              debias: this.debias,
              scalings: this.scalings,
              call: { requestId: context.requestId },
            }).catch((error: unknown) => {
              throw inCallersWords(error, request.question);
            }),
            units: 1,
          }),
          // The result was read in the request's own mode, so mode and result pair as one
          // arm of the union; the compiler cannot follow that through runDecision.
          respond: (outcome, { access, timing, evaluatedAt }) =>
            ({
              mode: request.mode,
              question: request.question,
              result: outcome.result,
              signal: outcome.signal,
              contextSufficiency: outcome.contextSufficiency,
              labelMass: outcome.labelMass,
              model: outcome.model,
              inputTokens: outcome.inputTokens,
              evaluatedAt,
              access,
              stress: outcome.stress,
              timing,
            }) as DecisionResponse,
          logFacts: (response, json) => decisionFacts(request, response, json),
        },
        context,
      ),
    );
  }

  /** A System One request: each question one standard decision, paid together (systemone.ts). */
  async systemOne(request: SystemOneRequest, context: DecideContext): Promise<PaidAnswer<SystemOneResponse>> {
    const work = systemOneWork(request, this.engine, {
      debias: this.debias,
      scalings: this.scalings,
      call: { requestId: context.requestId },
    });
    const labels = { channel: context.channel, mode: 'systemone', depth: 'standard' };
    return this.finished(labels, Object.keys(request.questions).length, context.caller, this.paid.run(work, context));
  }

  /** Resolves when the ledger takes a write now (readiness). */
  ping(): Promise<void> {
    return this.store.ping();
  }

  /** Resolves when the engine answers its cheap call (a provider's models list); a local engine has none and is ready. */
  async probeEngine(signal: AbortSignal): Promise<void> {
    await this.engine.probe?.(signal);
  }

  async usage(caller: Caller): Promise<Usage> {
    const now = this.now();
    const { freeUsed, passCredits } = await this.store.keys.usage(caller, now).catch((error: unknown) => {
      throw error instanceof KeyNotActive ? revokedKey() : error;
    });
    this.store.keys.noteUse(caller.keyId, now);
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

  /** Whether the caller's key is active now, in the ledger itself (a revocation through any server counts at once). */
  async isActive(caller: Caller): Promise<boolean> {
    return this.store.keys.isActive(caller.keyId);
  }

  async revoke(caller: Caller): Promise<KeyRevoked> {
    const revoked = await this.store.keys.revoke(caller.keyId, this.now());
    // Revoked between authentication and now: the same answer as any unknown key.
    if (!revoked) throw revokedKey();
    return { revoked: true, ...revoked };
  }

  async metrics(now = this.now()): Promise<Metrics> {
    const day = utcDay(now);
    return metricsRecord(day, await this.store.metrics.day(now));
  }

  secondsToMidnight(): number {
    return secondsToMidnight(this.now());
  }
}
