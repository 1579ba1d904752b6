// Types of bench/lib/llama-server.js, for test/engine/llama-server.test.ts.
import type { ChildProcess } from 'node:child_process';

export const LLAMA_SERVER_VERSION: string;
export const BUILD_HINT: string;
export const ANSWER_PRIMED_CHATML: string;
export function llamaServerBinary(env?: NodeJS.ProcessEnv): string;
export function findLlamaServer(): { binary: string; skipped?: undefined } | { binary?: undefined; skipped: string };

export interface LlamaServer {
  url: string;
  child: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}
export function startLlamaServer(options: {
  binary: string;
  model: string;
  threads?: number;
  slots?: number;
  context?: number;
  chatTemplate?: string;
  extra?: string[];
}): Promise<LlamaServer>;

export interface ServerCall {
  prompt: number;
  cached: number;
}
export interface UsageRecorder {
  url: string;
  count(): number;
  since(n: number): { calls: number; prompt: number; cached: number; share: number; each: ServerCall[] };
  close(): Promise<void>;
}
export function startUsageRecorder(upstream: string): Promise<UsageRecorder>;
