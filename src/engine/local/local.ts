import { access, constants } from 'node:fs/promises';
import { basename } from 'node:path';
import { type Engine, EngineError, type EngineReply, type Questions } from '../engine.js';
import { Collector } from './collector.js';
import { evaluateTree, type LetterReading } from './prefix-tree.js';
import { PromptLayout, type Reading, type TokenCache } from './prompt.js';
import { answerOf, lettered } from './questions.js';
import { readingsOf } from './readings.js';
import { backendName, type Llama, type LlamaContext, type LlamaModel, LocalEngineError, loadRuntime, startLlama } from './runtime.js';
import { SequenceTurns } from './sequences.js';
import { defaultThreads } from './threads.js';

export interface LocalEngineOptions {
  /** A GGUF file. */
  modelPath: string;
  /** The model name reported in decisions; the file name by default. */
  model?: string;
  /** llama.cpp threads; threads.ts `defaultThreads()` unless given. */
  threads?: number;
}

/** What the operator is told at start: how the engine runs. */
export interface LocalSettings {
  threads: number;
  /** CPU, CUDA, Vulkan, Metal. */
  backend: string;
  /** Tokens one sequence holds. */
  contextSize: number;
  /** Sequences of the context: one (below). */
  sequences: number;
}

/** Prompt tokens since the start: all of them, and those the model actually evaluated. */
export interface LocalStats {
  promptTokens: number;
  evaluatedTokens: number;
}

export type LocalEngine = Engine & { readonly settings: LocalSettings; stats(): LocalStats; askAll: NonNullable<Engine['askAll']> };

export function describeSettings({ threads, backend, contextSize }: LocalSettings): string {
  return `${threads} thread${threads === 1 ? '' : 's'} on ${backend}, context ${contextSize} tokens, one decision at a time`;
}

/**
 * One sequence, one job on it at a time, each from an empty state (sequences.ts): the
 * price of answers that read the same every time. Side by side in one batch, or after
 * what another job left, a reading's numbers move (bench/HISTORY.md measures the cost).
 */
const SEQUENCES = 1;
/** Tokens per sequence: a 4,000-character context and its questions fit easily. */
const CONTEXT_TOKENS = 4096;
/** Readings between full garbage collections (collector.ts): a few ms each, every few dozen decisions. */
const COLLECT_EVERY = 500;

/**
 * The embedded engine: one GGUF model loaded once per process. Every question is a
 * lettered choice (questions.ts) laid out so a decision's readings share their
 * prefixes (prompt.ts), evaluated once each (prefix-tree.ts); the answer is the
 * probabilities of the letters as the next token, read directly, with no sampling.
 * A question of more answers than one reading letters is read in groups (readings.ts).
 */
export async function createLocalEngine(options: LocalEngineOptions): Promise<LocalEngine> {
  const { modelPath } = options;
  const threads = options.threads ?? defaultThreads();
  try {
    await access(modelPath, constants.R_OK);
  } catch {
    throw new LocalEngineError('model', `the model file ${modelPath} does not exist or cannot be read`);
  }
  const runtime = await loadRuntime();
  const llama = await startLlama(runtime, threads);
  let model: LlamaModel;
  let context: LlamaContext;
  try {
    model = await llama.loadModel({ modelPath });
  } catch (error) {
    await llama.dispose();
    throw new LocalEngineError('model', `cannot load the model ${modelPath}: ${firstLine(error)} (is it a GGUF model file?)`);
  }
  let layout: PromptLayout;
  try {
    context = await model.createContext({
      threads,
      sequences: SEQUENCES,
      contextSize: { max: Math.min(CONTEXT_TOKENS, model.trainContextSize) },
    });
    layout = PromptLayout.create(runtime, model);
  } catch (error) {
    await model.dispose();
    await llama.dispose();
    throw new LocalEngineError('model', `cannot create a context for the model ${modelPath}: ${firstLine(error)}`);
  }
  const settings = { threads, backend: backendName(llama.gpu), contextSize: context.contextSize, sequences: SEQUENCES };
  return new TreeEngine(options.model ?? basename(modelPath, '.gguf'), settings, {
    llama,
    model,
    context,
    layout,
    turns: new SequenceTurns(context.getSequence()),
  });
}

interface Parts {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  layout: PromptLayout;
  turns: SequenceTurns;
}

type Call = { state: string; questions: Questions };

class TreeEngine implements LocalEngine {
  readonly name = 'local';
  /**
   * Decisions let in at once (service/admission.ts): one, as the model evaluates one
   * job at a time; the rest wait in admission's queue, whose estimates then hold.
   */
  readonly capacity = SEQUENCES;
  readonly #stats: LocalStats = { promptTokens: 0, evaluatedTokens: 0 };
  /** Every reading is an evaluation that leaves a sampler's buffer behind (collector.ts). */
  readonly #collector = new Collector(COLLECT_EVERY);

  constructor(
    readonly model: string,
    readonly settings: LocalSettings,
    private readonly parts: Parts,
  ) {}

  stats(): LocalStats {
    return { ...this.#stats };
  }

  async ask<Q extends Questions>(state: string, questions: Q, signal: AbortSignal): Promise<EngineReply<Q>> {
    const [reply] = await this.askAll([{ state, questions }], signal);
    return reply as EngineReply<Q>;
  }

  /**
   * Every reading of every call as one tree, so what the calls share (a stress
   * decision's facts before the one left out, a grouped question's state) is
   * evaluated once. `inputTokens` of a reply counts every prompt token of its
   * readings, evaluated or reused, as a provider would bill them.
   */
  async askAll(calls: readonly Call[], signal: AbortSignal): Promise<EngineReply[]> {
    if (signal.aborted) throw new EngineError('timeout', 'the decision deadline passed before the local model was asked');
    const { layout, turns } = this.parts;
    const readings: Reading[] = [];
    const tokens: TokenCache = new Map();
    const placed = calls.map(({ state, questions }) =>
      Object.entries(questions).map(([name, question]) => {
        const own = readingsOf(layout, state, lettered(question), tokens, name);
        for (const reading of own.readings) {
          if (reading.tokens.length > this.settings.contextSize) {
            throw new EngineError(
              'bad_response',
              `the local model could not answer: the prompt of "${name}" is ${reading.tokens.length} tokens, more than its context of ${this.settings.contextSize}`,
            );
          }
        }
        const indexes = own.readings.map((_, i) => readings.length + i);
        readings.push(...own.readings);
        return { name, question, indexes, combine: own.combine };
      }),
    );
    let read: LetterReading[];
    let evaluated: number;
    try {
      ({ readings: read, evaluated } = await evaluateTree(turns, readings, signal));
    } catch (error) {
      if (signal.aborted) throw new EngineError('timeout', 'the local model did not answer before the decision deadline');
      if (error instanceof EngineError) throw error;
      throw new EngineError('bad_response', `the local model could not answer: ${firstLine(error)}`);
    }
    this.#stats.evaluatedTokens += evaluated;
    this.#collector.count(readings.length);
    return placed.map((entries) => {
      const answers: Record<string, unknown> = {};
      let inputTokens = 0;
      for (const { name, question, indexes, combine } of entries) {
        const own = indexes.map((i) => read[i]);
        if (own.some((r) => !r || r.p.some((x) => !Number.isFinite(x))))
          throw new EngineError('bad_response', `the local model gave no usable answer to "${name}"`);
        const labelMass = Math.min(...own.map((r) => r.labelMass));
        answers[name] = { ...answerOf(question, combine(own.map((r) => r.p))), labelMass };
        for (const i of indexes) inputTokens += readings[i].tokens.length;
      }
      this.#stats.promptTokens += inputTokens;
      return { answers, inputTokens } as EngineReply;
    });
  }

  async close(): Promise<void> {
    await this.parts.context.dispose();
    await this.parts.model.dispose();
    await this.parts.llama.dispose();
  }
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0];
}
