import { hash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

/**
 * API keys: `dcd_api_` + 32 random bytes in base62 (43 characters) + a 6-character
 * base62 CRC32 of what precedes it, so secret scanners can match them and a client
 * can reject a mistyped key without a round trip.
 */
export const KEY_PREFIX = 'dcd_api_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SECRET_CHARS = 43;
const CHECK_CHARS = 6;
const KEY_PATTERN = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${SECRET_CHARS + CHECK_CHARS}}$`);

function base62(value: bigint, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = ALPHABET[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

function checksum(body: string): string {
  return base62(BigInt(crc32(body)), CHECK_CHARS);
}

export function generateKey(): string {
  const body = KEY_PREFIX + base62(BigInt('0x' + randomBytes(32).toString('hex')), SECRET_CHARS);
  return body + checksum(body);
}

/** True when the text has the key's shape and its checksum matches. */
export function isWellFormedKey(text: string): boolean {
  if (!KEY_PATTERN.test(text)) return false;
  const body = text.slice(0, -CHECK_CHARS);
  return checksum(body) === text.slice(-CHECK_CHARS);
}

/** What the ledger stores instead of the key. */
export function keyFingerprint(key: string): Buffer {
  // One-shot: every request takes one, and a Hash object per call costs twice as much.
  return hash('sha256', key, 'buffer');
}

/** A display hint that cannot be used to recover the key. */
export function keyHint(key: string): string {
  return `${KEY_PREFIX}…${key.slice(-4)}`;
}
