import { hash, randomFillSync } from 'node:crypto';
import { isIP } from 'node:net';
import { generateKey, keyFingerprint, keyHint } from '../contract/key.js';
import type { CreatedKey } from './keys.js';

/**
 * The ids both ledgers give what they create, and the fingerprints they keep instead
 * of secrets: shared, so a pass or a key looks the same whichever database holds it.
 */

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 22 base62 characters ≈ 131 bits: unguessable, so an id leaks nothing and never collides. */
const ID_CHARS = 22;

/**
 * Random bytes drawn a few kilobytes at a time: one call into the kernel's generator
 * per ~190 ids instead of one per id (a decision makes one).
 */
const pool = Buffer.alloc(4096);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++];
}

/** Charge ids start with the time in milliseconds, in 8 characters (good until the year 8900). */
const TIME_CHARS = 8;

/**
 * Whether `text` has the shape of an id: its prefix, `_`, then letters and digits (of
 * any length: ledgers made by early versions hold shorter ones). Text of any other
 * shape names nothing and is not sent to a store: PostgreSQL refuses some (a NUL) with
 * an error rather than finding no row.
 */
export function isIdOf(prefix: 'pass' | 'key', text: string): boolean {
  return text.startsWith(`${prefix}_`) && /^[0-9A-Za-z]+$/.test(text.slice(prefix.length + 1));
}

/**
 * A random id such as `pass_3kTq…`; the prefix tells a reader of logs what it names.
 * A charge's id begins with the time, so ids sort in the order charges were made and
 * each new row lands on the same page as the last (the ledger's tables are keyed by
 * id); its 14 random characters (≈ 83 bits) keep it unguessable.
 */
export function newId(prefix: 'pass' | 'key' | 'chg' | 'res' | 'fund'): string {
  let out = `${prefix}_`;
  let n = 0;
  if (prefix === 'chg') {
    // The alphabet is in ASCII order, so fixed-width base62 sorts as the number.
    let time = '';
    for (let t = Date.now(); time.length < TIME_CHARS; t = Math.floor(t / 62)) time = ALPHABET[t % 62] + time;
    out += time;
    n = TIME_CHARS;
  }
  for (; n < ID_CHARS; ) {
    const byte = randomByte();
    // 248 = 4 × 62: rejecting the top bytes keeps every character equally likely.
    if (byte < 248) {
      out += ALPHABET[byte % 62];
      n++;
    }
  }
  return out;
}

/**
 * What the ledger stores instead of a client IP. An IPv4 address seen through a
 * dual-stack socket (`::ffff:1.2.3.4`) counts as the same client as `1.2.3.4`.
 */
export function ipFingerprint(ip: string): Buffer {
  let text = ip.trim().toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (mapped && isIP(mapped[1]) === 4) text = mapped[1];
  return hash('sha256', text, 'buffer');
}

/** A new key for `passId`, created at `now`, with everything the ledger stores of it (its fingerprint and hint) and the key itself, to show once. */
export function freshKey(passId: string, now: Date): CreatedKey & { fingerprint: Buffer } {
  const key = generateKey();
  return {
    key,
    keyId: newId('key'),
    keyHint: keyHint(key),
    passId,
    createdAt: now.toISOString(),
    fingerprint: keyFingerprint(key),
  };
}
