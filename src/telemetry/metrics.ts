import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ServiceError } from '../contract/index.js';
import type { Access } from '../contract/answer.js';
import { EngineError, type Engine } from '../engine/engine.js';
import type { Store } from '../ledger/store.js';

/** What a decision was: its channel (api, web), mode (choice, noul, score, or systemone for a System One request) and depth. */
export interface DecisionLabels {
  channel: string;
  mode: string;
  depth: string;
}

/**
 * The service's metrics in the Prometheus text format (`GET /metrics`), through
 * prom-client, one registry per server (so servers in one process, as in the tests,
 * never share counters). Each is observed from outside the code it measures: the
 * engine and the ledger's charges are wrapped (measureEngine, measureLedger), and the
 * service reports each decision's outcome (`decided`), so the decision path itself
 * carries no bookkeeping.
 */
export class Telemetry {
  readonly registry = new Registry();
  private readonly decisions: Counter<'channel' | 'mode' | 'depth' | 'outcome'>;
  private readonly refusals: Counter<'code'>;
  private readonly charged: Counter<'kind'>;
  private readonly engineSeconds: Histogram<'engine' | 'outcome'>;
  private readonly ledgerSeconds: Histogram<'operation' | 'outcome'>;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.decisions = new Counter({
      name: 'decide_decisions_total',
      help: 'Decisions asked for, by channel, mode, depth and outcome (ok, or the error code answered).',
      labelNames: ['channel', 'mode', 'depth', 'outcome'],
      registers,
    });
    this.refusals = new Counter({
      name: 'decide_refusals_total',
      help: 'Decisions refused before the engine ran: admission (engine_busy) and the allowance (free_limit_reached, rate_limited, insufficient_credits, pass_required).',
      labelNames: ['code'],
      registers,
    });
    this.charged = new Counter({
      name: 'decide_charged_decisions_total',
      help: 'Decisions charged, by what paid: free (the daily allowance) or credits (a pass). A System One request counts one per question.',
      labelNames: ['kind'],
      registers,
    });
    this.engineSeconds = new Histogram({
      name: 'decide_engine_seconds',
      help: "Time of one engine call (a decision's base reading, or all its readings together), by outcome (ok or the failure kind).",
      labelNames: ['engine', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
      registers,
    });
    this.ledgerSeconds = new Histogram({
      name: 'decide_ledger_seconds',
      help: 'Time of one ledger operation on the decision path (reserve, commit, release), by outcome.',
      labelNames: ['operation', 'outcome'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registers,
    });
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'decide_' });
  }

  /** A gauge read when scraped (decisions running, waiting). */
  gauge(name: string, help: string, read: () => number): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      collect() {
        this.set(read());
      },
    });
  }

  /** One decision's end: `ok` with what paid, or the error code it was answered with. */
  decided(labels: DecisionLabels, outcome: { access?: Access; units: number; replayed: boolean } | { error: unknown }): void {
    if ('error' in outcome) {
      const code = outcome.error instanceof ServiceError ? outcome.error.code : 'internal_error';
      this.decisions.inc({ ...labels, outcome: code });
      if (outcome.error instanceof ServiceError && (outcome.error.status === 402 || outcome.error.status === 429))
        this.refusals.inc({ code });
      return;
    }
    this.decisions.inc({ ...labels, outcome: outcome.replayed ? 'replayed' : 'ok' });
    if (outcome.access?.charged !== false && outcome.access)
      this.charged.inc({ kind: outcome.access.type === 'free' ? 'free' : 'credits' }, outcome.units);
  }

  /** `engine`, each call timed. Everything else of it is passed through as it is. */
  measureEngine(engine: Engine): Engine {
    const time = async <T>(work: () => Promise<T>): Promise<T> => {
      const end = this.engineSeconds.startTimer({ engine: engine.name });
      try {
        const result = await work();
        end({ outcome: 'ok' });
        return result;
      } catch (error) {
        end({ outcome: error instanceof EngineError ? error.kind : 'error' });
        throw error;
      }
    };
    const askAll = engine.askAll?.bind(engine);
    return {
      name: engine.name,
      model: engine.model,
      capacity: engine.capacity,
      endpoint: engine.endpoint,
      probe: engine.probe?.bind(engine),
      close: engine.close?.bind(engine),
      ask: (state, questions, signal, call) => time(() => engine.ask(state, questions, signal, call)),
      ...(askAll ? { askAll: (calls, signal, call) => time(() => askAll(calls, signal, call)) } : {}),
    };
  }

  /** `store`, its charges' reserve, commit and release timed; the rest as it is. */
  measureLedger(store: Store): Store {
    const timed = new Set(['reserve', 'commit', 'release']);
    const charges = new Proxy(store.charges, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function' || !timed.has(String(name))) return value;
        return async (...args: unknown[]) => {
          const end = this.ledgerSeconds.startTimer({ operation: String(name) });
          try {
            const result = await value.apply(target, args);
            end({ outcome: 'ok' });
            return result;
          } catch (error) {
            end({ outcome: 'error' });
            throw error;
          }
        };
      },
    });
    return new Proxy(store, { get: (target, name, receiver) => (name === 'charges' ? charges : Reflect.get(target, name, receiver)) });
  }

  /** The text a scrape gets, and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
