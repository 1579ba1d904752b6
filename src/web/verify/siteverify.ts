import { type Dispatcher, fetch } from 'undici';

/**
 * The siteverify call Turnstile and hCaptcha share: a form-encoded POST of the secret
 * and the widget's token, answered with JSON `{ success, "error-codes", … }`.
 */
export type Verdict = { kind: 'passed' } | { kind: 'failed'; errorCodes: string[] } | { kind: 'unavailable'; reason: string };

/** Error codes that mean the provider itself failed, not the browser. */
const PROVIDER_FAULTS = new Set(['internal-error']);

/** `dispatcher` gives the agent the call goes out through (net/outbound.ts, with the configured proxy). */
export async function siteverify(
  url: string,
  fields: Record<string, string>,
  timeoutMs: number,
  dispatcher: () => Dispatcher,
): Promise<Verdict> {
  let response: Awaited<ReturnType<typeof fetch>>;
  let text: string;
  try {
    response = await fetch(url, {
      dispatcher: dispatcher(),
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(fields).toString(),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'error',
    });
    text = await response.text();
  } catch (error) {
    const name = (error as Error).name;
    return { kind: 'unavailable', reason: name === 'TimeoutError' ? `did not answer within ${timeoutMs} ms` : 'cannot be reached' };
  }
  // The provider's body is never quoted: it is not ours to echo.
  if (!response.ok) return { kind: 'unavailable', reason: `answered HTTP ${response.status}` };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { kind: 'unavailable', reason: 'answered with something that is not JSON' };
  }
  const verdict = body as { success?: unknown; 'error-codes'?: unknown } | null;
  if (typeof verdict !== 'object' || verdict === null || typeof verdict.success !== 'boolean') {
    return { kind: 'unavailable', reason: 'answered without a success field' };
  }
  if (verdict.success) return { kind: 'passed' };
  const errorCodes = Array.isArray(verdict['error-codes'])
    ? verdict['error-codes'].filter((c): c is string => typeof c === 'string' && /^[\w-]{1,64}$/.test(c)).slice(0, 5)
    : [];
  if (errorCodes.some((c) => PROVIDER_FAULTS.has(c))) return { kind: 'unavailable', reason: 'reported an internal error' };
  return { kind: 'failed', errorCodes };
}
