import { randomBytes } from 'node:crypto';
import type { Store } from '../ledger/store.js';
import { noVerification, providerVerifier, VERIFY_PROVIDERS, type Verifier, type VerifyProvider } from './verify/verifier.js';

/**
 * The browser side's configuration, from the environment only (secrets never travel
 * as flags, which every user of the machine sees in `ps`):
 *
 * - DECIDE_VERIFY=none|turnstile|hcaptcha (default none: local use, clearly labelled);
 * - DECIDE_VERIFY_SITE_KEY, DECIDE_VERIFY_SECRET: the provider's widget and secret keys;
 * - DECIDE_VERIFY_URL: the siteverify endpoint, for tests against a loopback fake;
 * - DECIDE_COOKIE_SECRET: signs the pass cookie (≥ 32 characters); without it a secret
 *   is generated once and kept in the database, so restarts keep browsers' passes;
 * - DECIDE_PUBLIC_URL: the origin browsers use (https://decide.example.com), when a
 *   proxy in front makes it differ from what the server sees.
 */
export interface WebConfig {
  verifier: Verifier;
  cookieSecret: string | null;
  publicUrl: string | null;
}

export const MIN_COOKIE_SECRET = 32;
export const COOKIE_SECRET_SETTING = 'cookie_secret';

export function webConfigFromEnv(env: NodeJS.ProcessEnv = process.env): WebConfig {
  const provider = (env.DECIDE_VERIFY?.trim() || 'none') as VerifyProvider;
  if (!VERIFY_PROVIDERS.includes(provider)) {
    throw new Error(`DECIDE_VERIFY must be one of ${VERIFY_PROVIDERS.join(', ')}, not "${env.DECIDE_VERIFY}"`);
  }
  let verifier = noVerification;
  if (provider !== 'none') {
    const siteKey = env.DECIDE_VERIFY_SITE_KEY?.trim();
    const secret = env.DECIDE_VERIFY_SECRET?.trim();
    if (!siteKey) throw new Error(`DECIDE_VERIFY=${provider} needs DECIDE_VERIFY_SITE_KEY (the widget's site key)`);
    if (!secret) throw new Error(`DECIDE_VERIFY=${provider} needs DECIDE_VERIFY_SECRET (in the environment, never a flag)`);
    verifier = providerVerifier({ provider, siteKey, secret, verifyUrl: httpUrl(env, 'DECIDE_VERIFY_URL')?.href });
  }

  const cookieSecret = env.DECIDE_COOKIE_SECRET || null;
  if (cookieSecret !== null && cookieSecret.length < MIN_COOKIE_SECRET) {
    throw new Error(`DECIDE_COOKIE_SECRET must be at least ${MIN_COOKIE_SECRET} characters (or unset: one is kept in the database)`);
  }

  const publicUrl = httpUrl(env, 'DECIDE_PUBLIC_URL');
  if (publicUrl && publicUrl.pathname !== '/') {
    throw new Error('DECIDE_PUBLIC_URL must be an origin only (https://decide.example.com), without a path');
  }
  return { verifier, cookieSecret, publicUrl: publicUrl?.origin ?? null };
}

/** The operator's cookie secret, or the one the database keeps (created by the first server to ask). */
export async function resolveCookieSecret(config: WebConfig, store: Store): Promise<string> {
  return config.cookieSecret ?? store.setting(COOKIE_SECRET_SETTING, randomBytes(32).toString('base64url'));
}

function httpUrl(env: NodeJS.ProcessEnv, name: string): URL | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${name} must be an http(s) URL, not "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${name} must be an http(s) URL, not "${raw}"`);
  return url;
}
