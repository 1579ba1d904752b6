/**
 * The part of node-llama-cpp the local engine uses, described here rather than
 * imported: the package is an optional peer dependency (installed on its own, beside
 * decide), and without it everything else must still build and run.
 */
export interface NodeLlamaCpp {
  getLlama(options: {
    build: 'never';
    gpu?: 'auto' | false;
    maxThreads: number;
    logLevel: string;
    logger: (level: string, message: string) => void;
  }): Promise<Llama>;
  createModelDownloader(options: {
    modelUri: string;
    dirPath: string;
    fileName: string;
    showCliProgress: boolean;
    skipExisting: boolean;
    deleteTempFileOnCancel: boolean;
  }): Promise<{ download(options?: { signal?: AbortSignal }): Promise<string>; cancel(): Promise<void> }>;
  resolveChatWrapper(model: LlamaModel): ChatWrapper;
  LlamaText(values: ReadonlyArray<string | object>): LlamaTextValue;
}

export interface Llama {
  /** The backend llama.cpp runs on: `cuda`, `vulkan`, `metal`, or false for the CPU. */
  readonly gpu: string | false;
  loadModel(options: { modelPath: string }): Promise<LlamaModel>;
  dispose(): Promise<void>;
}

export type Token = number;

export interface LlamaModel {
  readonly trainContextSize: number;
  readonly tokenizer: unknown;
  tokenize(text: string, specialTokens: false, options?: 'trimLeadingSpace'): Token[];
  detokenize(tokens: readonly Token[]): string;
  createContext(options: { threads: number; sequences: number; contextSize: { max: number } }): Promise<LlamaContext>;
  dispose(): Promise<void>;
}

export interface LlamaContext {
  /** Tokens one sequence holds. */
  readonly contextSize: number;
  readonly sequencesLeft: number;
  getSequence(): LlamaSequence;
  dispose(): Promise<void>;
}

/**
 * What is asked of one evaluated token: the logits of `tokens` and of the token a
 * greedy pick selects (the most likely), and the sum of exp(logit − the largest
 * logit) over the whole vocabulary, which together give each token's share of the
 * next-token probability.
 */
export type LogitsRequest = [
  Token,
  { generateNext: { logits: { filter: { tokens: Token[]; includeSelected: true } }; totalLogitWeight: true } },
];

/** One sequence of a context: its evaluated tokens stay in memory until erased. */
export interface LlamaSequence {
  readonly contextTokens: Token[];
  readonly nextTokenIndex: number;
  /** True for models (recurrent, hybrid, sliding-window) whose state cannot be cut back without checkpoints. */
  readonly needsCheckpoints: boolean;
  /** Keeps the longest prefix of `tokens` the sequence holds and erases the rest. */
  adaptStateToTokens(tokens: Token[], allowShift: false): Promise<void>;
  eraseContextTokenRanges(ranges: { start: number; end: number }[]): Promise<void>;
  evaluateWithoutGeneratingNewTokens(tokens: Token[]): Promise<void>;
  controlledEvaluate(
    input: Array<Token | LogitsRequest>,
  ): Promise<Array<undefined | { next?: { logits?: Map<Token, number>; totalLogitWeight?: number } }>>;
  takeCheckpoint(): Promise<void>;
  /**
   * Internal to node-llama-cpp (its decision context shares a prefix this way): makes
   * this sequence hold `other`'s first `upTo` tokens without evaluating them. May be
   * missing from another version; the engine then evaluates instead.
   */
  _copyStateFromOtherSequence?(other: LlamaSequence, upTo: number): Promise<boolean>;
}

/** A chat template, rendered around marker strings to find where the user's text and the answer go. */
export interface ChatWrapper {
  generateContextState(options: { chatHistory: Array<{ type: 'user'; text: string } | { type: 'model'; response: string[] }> }): {
    contextText: LlamaTextValue;
  };
}

export interface LlamaTextValue {
  readonly values: ReadonlyArray<string | object>;
  tokenize(tokenizer: unknown, options: 'trimLeadingSpace'): Token[];
}

/** Why the local engine cannot start: its runtime is missing, or the model file is unusable. */
export class LocalEngineError extends Error {
  constructor(
    readonly reason: 'runtime' | 'model',
    message: string,
  ) {
    super(message);
    this.name = 'LocalEngineError';
  }
}

export const MISSING_RUNTIME = `the local engine needs node-llama-cpp, which is not installed: it is installed apart
  from decide, as its native binaries are large. Install it beside decide with: npm install node-llama-cpp@3
  (npm install -g node-llama-cpp@3 when decide is installed with -g),
  or configure a remote engine instead (DECIDE_ENGINE=openai|systemone|anthropic, see the README).`;

/**
 * node-llama-cpp is loaded only when the local engine is asked for: it brings
 * native binaries of several hundred megabytes that users of remote providers
 * can leave out. `specifier` exists for the test of the missing-package message.
 */
export async function loadRuntime(specifier = 'node-llama-cpp'): Promise<NodeLlamaCpp> {
  try {
    return (await import(specifier)) as NodeLlamaCpp;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new LocalEngineError('runtime', MISSING_RUNTIME);
    throw error;
  }
}

/**
 * One llama.cpp runtime per process, on at most `threads` threads (threads.ts: the
 * library's CPU default is at least 4, which oversubscribes a small machine and
 * slows every decision down). Building from source is never attempted (it would
 * download llama.cpp at run time); the prebuilt binaries come with npm.
 */
export async function startLlama(runtime: NodeLlamaCpp, threads: number): Promise<Llama> {
  return runtime.getLlama({
    build: 'never',
    maxThreads: threads,
    logLevel: 'error',
    logger: (level, message) => {
      const text = message.trim();
      if (text) process.stderr.write(`decide: llama.cpp ${level}: ${text}\n`);
    },
  });
}

/** How the backend is named to the operator. */
export function backendName(gpu: string | false): string {
  if (gpu === false) return 'CPU';
  return gpu === 'cuda' ? 'CUDA' : gpu === 'vulkan' ? 'Vulkan' : gpu === 'metal' ? 'Metal' : gpu;
}
