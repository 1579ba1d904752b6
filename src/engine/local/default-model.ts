import { join } from 'node:path';
import type { LocalSettings } from '../../config/engine.js';
import type { ModelFile } from './download.js';

/**
 * The model `decide serve` uses when no engine is configured: Qwen2.5 1.5B
 * Instruct, Apache-2.0, quantised to Q4_K_M (1.1 GB, about 1.5 GB of memory in
 * use). Pinned to one revision of the publisher's repository, so the checksum
 * never goes stale.
 */
export const DEFAULT_MODEL = {
  name: 'qwen2.5-1.5b-instruct-q4_k_m',
  fileName: 'qwen2.5-1.5b-instruct-q4_k_m.gguf',
  url: 'https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/91cad51170dc346986eccefdc2dd33a9da36ead9/qwen2.5-1.5b-instruct-q4_k_m.gguf',
  bytes: 1_117_320_736,
  sha256: '6a1a2eb6d15622bf3c96857206351ba97e1af16c30d7a74ee38970e434e9407e',
} as const satisfies ModelFile & { name: string; fileName: string };

/**
 * Where the default model comes from and is kept: under the platform's per-user cache
 * folder. A mirror (`DECIDE_DEFAULT_MODEL_URL`) points the one download inside a
 * closed network; the checksum still has to match.
 */
export function defaultModelSource({ mirror, cacheDir }: LocalSettings['defaultModel']): ModelFile & { path: string } {
  return {
    url: mirror || DEFAULT_MODEL.url,
    bytes: DEFAULT_MODEL.bytes,
    sha256: DEFAULT_MODEL.sha256,
    path: join(cacheDir, 'decide', 'models', DEFAULT_MODEL.fileName),
  };
}
