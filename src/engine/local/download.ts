import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fetch } from 'undici';

/** A model file we know by its bytes: where it comes from and what it must hash to. */
export interface ModelFile {
  url: string;
  bytes: number;
  sha256: string;
}

export type Progress = (received: number, total: number) => void;

/** Attempts within one call; each resumes where the previous one stopped. */
const ATTEMPTS = 3;

/**
 * Fetches `file` to `target` once: bytes land in `target.part`, a later call (or
 * the next attempt after a dropped connection) resumes it with a Range request,
 * and only a file of the right size and SHA-256 is renamed into place. So
 * `target` existing means it was verified.
 *
 * node-llama-cpp's own downloader keeps nothing of an interrupted download
 * (measured: a killed process restarts from byte 0), which is why this exists.
 */
export async function fetchModelFile(file: ModelFile, target: string, progress?: Progress): Promise<void> {
  if (await sizeOf(target) !== null) return;
  await mkdir(dirname(target), { recursive: true });
  const part = `${target}.part`;
  let lastError: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      await resume(file, part, progress);
      lastError = undefined;
      break;
    } catch (error) {
      lastError = error;
      if (error instanceof ChecksumError) break;
    }
  }
  if (lastError) throw lastError;
  await rename(part, target);
}

export class ChecksumError extends Error {}

async function resume(file: ModelFile, part: string, progress?: Progress): Promise<void> {
  let have = (await sizeOf(part)) ?? 0;
  if (have > file.bytes) {
    await rm(part);
    have = 0;
  }
  if (have < file.bytes) {
    const response = await fetch(file.url, { headers: have > 0 ? { range: `bytes=${have}-` } : {} });
    if (response.status === 200) have = 0; // the server ignored the range: start over
    else if (response.status !== 206 || !response.headers.get('content-range')?.startsWith(`bytes ${have}-`)) {
      await response.body?.cancel();
      throw new Error(`the server answered HTTP ${response.status}`);
    }
    if (!response.body) throw new Error('the server sent no body');
    let received = have;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        progress?.(received, file.bytes);
        done(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(response.body as never), count, createWriteStream(part, { flags: have > 0 ? 'a' : 'w' }));
  }
  const size = await sizeOf(part);
  const digest = await sha256Of(part);
  if (size !== file.bytes || digest !== file.sha256) {
    await rm(part, { force: true });
    throw new ChecksumError(`the downloaded file is ${size} bytes with SHA-256 ${digest}; expected ${file.bytes} bytes with SHA-256 ${file.sha256}`);
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch {
    return null;
  }
}
