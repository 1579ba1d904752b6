import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** A file's SHA-256 in hex, read a MiB at a time: the wheels and models it checks run to hundreds of MB. */
export function sha256Of(file) {
  const hash = createHash('sha256');
  const fd = fs.openSync(file, 'r');
  const buffer = Buffer.alloc(1 << 20);
  try {
    for (let n; (n = fs.readSync(fd, buffer, 0, buffer.length, null)) > 0; ) hash.update(buffer.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}
