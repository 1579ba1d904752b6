import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** How much of each end of a model file is hashed. */
const END_BYTES = 1024 * 1024;

const known = new Map<string, string>();

/**
 * A short fingerprint of a model file's content, for keying what was measured on it
 * (fitted temperatures): a file of the same name with other weights (a re-quantised
 * download, another fine-tune) gets other fits. Hashing a whole 1 GB GGUF would cost
 * seconds at every start; this hashes its size, its first MiB (the GGUF header: the
 * architecture, quantisation and tokenizer, and the first tensors) and its last MiB
 * (the last tensors' data), 2 MiB read once per file, path, size and modification time
 * in a process. Two files alike in those but different in between would share fits:
 * a risk taken knowingly, since no real model file differs only in its middle.
 */
export function modelFingerprint(path: string): string {
  const stat = fs.statSync(path);
  const id = `${path}\0${stat.size}\0${stat.mtimeMs}`;
  const cached = known.get(id);
  if (cached) return cached;
  const hash = createHash('sha256').update(`${stat.size}\n`);
  const fd = fs.openSync(path, 'r');
  try {
    const read = (position: number, length: number) => {
      const buffer = Buffer.alloc(length);
      const n = fs.readSync(fd, buffer, 0, length, position);
      hash.update(buffer.subarray(0, n));
    };
    read(0, Math.min(END_BYTES, stat.size));
    if (stat.size > END_BYTES) read(Math.max(END_BYTES, stat.size - END_BYTES), Math.min(END_BYTES, stat.size - END_BYTES));
  } finally {
    fs.closeSync(fd);
  }
  const fingerprint = hash.digest('hex').slice(0, 16);
  known.set(id, fingerprint);
  return fingerprint;
}
