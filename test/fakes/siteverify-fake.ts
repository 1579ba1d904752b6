import { startHttpFake, type CommonBehaviour, type Fake, type Handler } from './http-fake.js';

/**
 * A loopback siteverify endpoint, as Cloudflare Turnstile and hCaptcha speak it: a
 * form-encoded POST of `secret`, `response` (the widget's token), `remoteip` (and
 * hCaptcha's `sitekey`), answered 200 with `{ success, "error-codes", challenge_ts,
 * hostname }`. By default the token `pass-me` passes and any other fails with
 * `invalid-input-response`; the common behaviours (status, hang, garbage, delay)
 * play the provider's failures.
 */
export interface SiteverifyBehaviour extends CommonBehaviour {
  /** The JSON verdict to answer with, as is (a malformed one included). */
  verdict?: unknown;
}

export type SiteverifyFake = Fake<SiteverifyBehaviour>;

export const PASSING_TOKEN = 'pass-me';

/** The form fields of a recorded request. */
export function formOf(body: unknown): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : ''));
}

function defaultVerdict(body: unknown): unknown {
  const token = formOf(body).response;
  return token === PASSING_TOKEN
    ? { success: true, 'error-codes': [], challenge_ts: '2026-11-22T10:00:00.000Z', hostname: '127.0.0.1' }
    : { success: false, 'error-codes': ['invalid-input-response'] };
}

export function startSiteverifyFake(handler?: Handler<SiteverifyBehaviour>): Promise<SiteverifyFake> {
  return startHttpFake<SiteverifyBehaviour>({
    path: '/siteverify',
    basePath: '/siteverify',
    defaultHandler: handler ?? (() => ({})),
    success: (behaviour, body) => behaviour.verdict ?? defaultVerdict(body),
  });
}
