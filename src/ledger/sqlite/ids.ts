import { createHash, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { generateKey, keyFingerprint, keyHint } from '../../contract/key.js';
import type { CreatedKey } from '../store.js';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 22 base62 characters ≈ 131 bits: unguessable, so an id leaks nothing and never collides. */
const ID_CHARS = 22;

/** A random id such as `pass_3kTq…`; the prefix tells a reader of logs what it names. */
export function newId(prefix: 'pass' | 'key' | 'chg' | 'res' | 'fund'): string {
  let out = '';
  while (out.length < ID_CHARS) {
    for (const byte of randomBytes(32)) {
      // 248 = 4 × 62: rejecting the top bytes keeps every character equally likely.
      if (byte < 248 && out.length < ID_CHARS) out += ALPHABET[byte % 62];
    }
  }
  return `${prefix}_${out}`;
}

/**
 * What the ledger stores instead of a client IP. An IPv4 address seen through a
 * dual-stack socket (`::ffff:1.2.3.4`) counts as the same client as `1.2.3.4`.
 */
export function ipFingerprint(ip: string): Buffer {
  let text = ip.trim().toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (mapped && isIP(mapped[1]) === 4) text = mapped[1];
  return createHash('sha256').update(text).digest();
}

/** A new key for `passId`, with everything the ledger stores of it (its fingerprint and hint) and the key itself, to show once. */
export function freshKey(passId: string): CreatedKey & { fingerprint: Buffer } {
  const key = generateKey();
  return {
    key,
    keyId: newId('key'),
    keyHint: keyHint(key),
    passId,
    createdAt: new Date().toISOString(),
    fingerprint: keyFingerprint(key),
  };
}
