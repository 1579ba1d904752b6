import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type Dispatcher, interceptors, request } from 'undici';
import type { ProxySettings } from '../../config/proxy.js';
import { describeFailure } from '../../net/failure.js';
import { outboundAgent } from '../../net/outbound.js';

/** A model file we know by its bytes: where it comes from and what it must hash to. */
export interface ModelFile {
  url: string;
  bytes: number;
  sha256: string;
}

export type Progress = (received: number, total: number) => void;

/** Attempts in a row that bring no byte, before giving up; one that brings some starts the count again. */
const ATTEMPTS = 3;
/**
 * Bytes received but not yet on disk, at most. Past it the connection is dropped and
 * the download resumes from what reached the disk: the reading side never pauses
 * (see `receive`), so this is what bounds memory when the disk is slower than the
 * network.
 */
const MOST_QUEUED = 64 * 1024 * 1024;

/**
 * Fetches `file` to `target` once: bytes land in `target.part`, a later call (or
 * the next attempt after a dropped connection) resumes it with a Range request,
 * and only a file of the right size and SHA-256 is renamed into place. So
 * `target` existing means it was verified. Goes through `proxy` (config/proxy.ts;
 * none when absent); every failure says why (net/failure.ts).
 *
 * node-llama-cpp's own downloader keeps nothing of an interrupted download
 * (measured: a killed process restarts from byte 0), which is why this exists.
 */
export async function fetchModelFile(file: ModelFile, target: string, progress?: Progress, proxy: ProxySettings = {}): Promise<void> {
  if ((await sizeOf(target)) !== null) return;
  await mkdir(dirname(target), { recursive: true });
  const part = `${target}.part`;
  const agent = outboundAgent({}, proxy);
  const dispatcher = agent.compose(interceptors.redirect({ maxRedirections: 5 }));
  try {
    let failures = 0;
    for (;;) {
      const before = (await sizeOf(part)) ?? 0;
      try {
        await resume(file, part, dispatcher, progress);
        break;
      } catch (error) {
        if (error instanceof ChecksumError) throw error;
        const gained = ((await sizeOf(part)) ?? 0) > before;
        failures = gained ? 1 : failures + 1;
        if (failures >= ATTEMPTS) throw error instanceof DownloadError ? error : new DownloadError(describeFailure(error, proxy));
      }
    }
  } finally {
    await agent.close();
  }
  await rename(part, target);
}

export class ChecksumError extends Error {}
/** A download that failed for a reason said in words (net/failure.ts, or the server's status). */
export class DownloadError extends Error {}
/** The disk fell MOST_QUEUED behind the network: drop the connection, resume from the disk. */
class DiskBehind extends Error {}

async function resume(file: ModelFile, part: string, dispatcher: Dispatcher, progress?: Progress): Promise<void> {
  let have = (await sizeOf(part)) ?? 0;
  if (have > file.bytes) {
    await rm(part);
    have = 0;
  }
  if (have < file.bytes) {
    // The reading side never pauses: undici's HTTP/1 parser, paused for a slow reader
    // when the server closes the connection (`Connection: close`, HTTP/1.0 servers such
    // as `python3 -m http.server`), throws an AssertionError nothing can catch
    // (nodejs/undici#5360, fixed only in undici 8, which needs Node 22). So its buffer
    // is never allowed to fill (highWaterMark), and `receive` bounds what waits for the disk.
    const response = await request(file.url, {
      headers: have > 0 ? { range: `bytes=${have}-` } : {},
      dispatcher,
      highWaterMark: MOST_QUEUED,
    });
    const ranged = response.statusCode === 206 && String(response.headers['content-range'] ?? '').startsWith(`bytes ${have}-`);
    if (response.statusCode !== 200 && !ranged) {
      await response.body.dump().catch(() => undefined);
      throw new DownloadError(`the server answered HTTP ${response.statusCode}`);
    }
    // A server that ignores Range (200, as python3 -m http.server does) sends the whole file: start over.
    await receive(response.body, part, response.statusCode === 200 ? 0 : have, file.bytes, progress);
  }
  const size = await sizeOf(part);
  const digest = await sha256Of(part);
  if (size !== file.bytes || digest !== file.sha256) {
    await rm(part, { force: true });
    throw new ChecksumError(
      `the downloaded file is ${size} bytes with SHA-256 ${digest}; expected ${file.bytes} bytes with SHA-256 ${file.sha256}`,
    );
  }
}

/**
 * Appends the body to `part` after its first `have` bytes (all of it when 0), in
 * order, chunk by chunk. Resolves once the body ended and every
 * chunk is on disk; on a failure, rejects only after the chunks already received are
 * written, so the next attempt resumes after them.
 */
async function receive(
  body: Dispatcher.ResponseData['body'],
  part: string,
  have: number,
  total: number,
  progress?: Progress,
): Promise<void> {
  // Listened to before the file is open: a connection that drops while it opens
  // reports its error then, once, and a body listened to only afterwards would wait
  // for an end that never comes (seen: a download hung for good).
  const opening = open(part, have > 0 ? 'a' : 'w');
  opening.catch(() => undefined); // its failure is met below, however late; not an unhandled rejection meanwhile
  let written = have;
  let queued = 0;
  let writing: Promise<unknown> = opening;
  try {
    await new Promise<void>((resolve, reject) => {
      let failure: unknown;
      const write = (chunk: Buffer) => {
        queued += chunk.length;
        writing = writing.then(async () => {
          if (failure) return;
          await (await opening).write(chunk);
          queued -= chunk.length;
          written += chunk.length;
          progress?.(written, total);
        });
        writing.catch((error: unknown) => {
          failure ??= error;
          body.destroy(error as Error);
        });
      };
      body.on('data', (chunk: Buffer) => {
        write(chunk);
        if (queued > MOST_QUEUED) body.destroy(new DiskBehind(`${queued} bytes waiting for the disk`));
      });
      const settle = (error?: unknown) => writing.then(() => (failure || error ? reject(failure ?? error) : resolve()), reject);
      body.once('end', () => void settle());
      body.once('error', (error) => void settle(error));
    });
  } finally {
    await (await opening).close();
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
