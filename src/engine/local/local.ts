import { access, constants } from 'node:fs/promises';
import { basename } from 'node:path';
import { type Engine, EngineError, type EngineReply, type Questions } from '../engine.js';
import { fromLibrary, toLibraryQuestions } from './questions.js';
import { backendName, type Llama, type LlamaDecisionContext, type LlamaModel, LocalEngineError, loadRuntime, startLlama } from './runtime.js';
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
  sequences: number;
}

export type LocalEngine = Engine & { readonly settings: LocalSettings };

export function describeSettings({ threads, backend, contextSize, sequences }: LocalSettings): string {
  return `${threads} thread${threads === 1 ? '' : 's'} on ${backend}, context ${contextSize} tokens, ${sequences} sequences`;
}

/**
 * Questions evaluated at once, each in its own sequence of one shared context:
 * concurrent decisions and a stress decision's checks are batched together by
 * llama.cpp instead of waiting for one another.
 */
const SEQUENCES = 8;
/** Tokens per sequence: a 4,000-character context and its questions fit easily. */
const CONTEXT_TOKENS = 4096;

/**
 * The embedded engine: one GGUF model loaded once per process, answered through
 * node-llama-cpp's decision context, which reads the probability of each option's
 * answer token directly (noul, choice and score are its own question types).
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
  let context: LlamaDecisionContext;
  try {
    model = await llama.loadModel({ modelPath });
  } catch (error) {
    await llama.dispose();
    throw new LocalEngineError('model', `cannot load the model ${modelPath}: ${firstLine(error)} (is it a GGUF model file?)`);
  }
  try {
    context = await model.createDecisionContext({
      threads,
      parallelQuestions: SEQUENCES,
      contextSize: { max: Math.min(CONTEXT_TOKENS, model.trainContextSize) },
    });
  } catch (error) {
    await model.dispose();
    await llama.dispose();
    throw new LocalEngineError('model', `cannot create a context for the model ${modelPath}: ${firstLine(error)}`);
  }
  const settings = { threads, backend: backendName(llama.gpu), contextSize: context.contextSize, sequences: SEQUENCES };
  return new DecisionContextEngine(options.model ?? basename(modelPath, '.gguf'), settings, llama, model, context);
}

class DecisionContextEngine implements LocalEngine {
  readonly name = 'local';
  /** A decision's call asks 2 to 4 questions at once: about half the sequences each. */
  readonly capacity = SEQUENCES / 2;

  constructor(
    readonly model: string,
    readonly settings: LocalSettings,
    private readonly llama: Llama,
    private readonly llamaModel: LlamaModel,
    private readonly context: LlamaDecisionContext,
  ) {}

  async ask<Q extends Questions>(state: string, questions: Q, signal: AbortSignal): Promise<EngineReply<Q>> {
    if (signal.aborted) throw new EngineError('timeout', 'the decision deadline passed before the local model was asked');
    let reply;
    try {
      reply = await this.context.decideWithMeta(state, toLibraryQuestions(questions), { signal, onOverflow: 'throw' });
    } catch (error) {
      if (signal.aborted) throw new EngineError('timeout', 'the local model did not answer before the decision deadline');
      throw new EngineError('bad_response', `the local model could not answer: ${firstLine(error)}`);
    }
    const answers: Record<string, unknown> = {};
    for (const [name, question] of Object.entries(questions)) {
      const answer = fromLibrary(question, reply.answers[name]);
      if (!answer) throw new EngineError('bad_response', `the local model gave no usable answer to "${name}"`);
      answers[name] = answer;
    }
    return { answers: answers as EngineReply<Q>['answers'], inputTokens: reply.tokenUsage.input };
  }

  async close(): Promise<void> {
    await this.context.dispose();
    await this.llamaModel.dispose();
    await this.llama.dispose();
  }
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0];
}
