import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The pass cookie: the browser's identity after its one verification.
 *
 *   decide_pass=v1.<passId>.<issued, Unix seconds>.<HMAC-SHA256, base64url>
 *
 * The MAC covers a purpose label, the version, the pass id and the issue time, under
 * the server's secret (DECIDE_COOKIE_SECRET, or one kept in the database). Anything
 * else (a changed character, another server's secret, a cookie older than its
 * lifetime or from the future) reads as no cookie at all. Over https the cookie is
 * `__Host-decide_pass` (Secure, Path=/, no Domain: no subdomain can set or shadow it).
 */
export const COOKIE_NAME = 'decide_pass';
export const SECURE_COOKIE_NAME = '__Host-decide_pass';
/** Chrome's cap on a cookie's lifetime: 400 days. */
export const COOKIE_MAX_AGE_S = 400 * 24 * 3600;
/** A cookie older than this is re-issued when the browser shows it, so an active browser keeps its pass. */
export const REISSUE_AFTER_S = 24 * 3600;
/** Clocks of servers sharing a secret may differ a little. */
const FUTURE_SLACK_S = 300;

const PATTERN = /^v1\.(pass_[0-9A-Za-z]{22})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

export interface PassCookie {
  passId: string;
  /** Unix seconds. */
  issuedAt: number;
}

export class PassCookies {
  private readonly key: Buffer;

  constructor(secret: string | Buffer) {
    this.key = Buffer.isBuffer(secret) ? secret : Buffer.from(secret, 'utf8');
    if (this.key.length < 16) throw new Error('the pass cookie secret is too short');
  }

  name(secure: boolean): string {
    return secure ? SECURE_COOKIE_NAME : COOKIE_NAME;
  }

  sign(passId: string, now: Date): string {
    const issuedAt = Math.floor(now.getTime() / 1000);
    return `v1.${passId}.${issuedAt}.${this.mac(passId, issuedAt).toString('base64url')}`;
  }

  /** The pass a cookie value names, or null when it is malformed, forged, expired or from the future. */
  read(value: string | undefined, now: Date): PassCookie | null {
    const match = value === undefined ? null : PATTERN.exec(value);
    if (!match) return null;
    const [, passId, issued, mac] = match;
    const issuedAt = Number(issued);
    const expected = this.mac(passId, issuedAt);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const age = Math.floor(now.getTime() / 1000) - issuedAt;
    if (age > COOKIE_MAX_AGE_S || age < -FUTURE_SLACK_S) return null;
    return { passId, issuedAt };
  }

  private mac(passId: string, issuedAt: number): Buffer {
    return createHmac('sha256', this.key).update(`decide pass cookie\0v1\0${passId}\0${issuedAt}`).digest();
  }
}
