import { z } from 'zod';
import { httpUrl, setting } from './parse.js';
import { webSwitch } from './schemas.js';
import { envRaw, envValue, type Env } from './variables.js';

/** Browser verification before a pass: none (local use), or one of the providers web/verify knows. */
export const VERIFY_PROVIDERS = ['none', 'turnstile', 'hcaptcha'] as const;
export type VerifyProvider = (typeof VERIFY_PROVIDERS)[number];

const MIN_COOKIE_SECRET = 32;

/**
 * The browser side's configuration, from the environment only (secrets never travel
 * as flags, which every user of the machine sees in `ps`):
 *
 * - DECIDE_WEB=on|off: the pages and browser key creation (default on);
 * - DECIDE_VERIFY=none|turnstile|hcaptcha (default none: local use, clearly labelled);
 * - DECIDE_VERIFY_SITE_KEY, DECIDE_VERIFY_SECRET: the provider's widget and secret keys;
 * - DECIDE_VERIFY_URL: the siteverify endpoint, for tests against a loopback fake;
 * - DECIDE_COOKIE_SECRET: signs the pass cookie (≥ 32 characters); without it a secret
 *   is generated once and kept in the database, so restarts keep browsers' passes;
 * - DECIDE_PUBLIC_URL: the origin browsers use (https://decide.example.com), when a
 *   proxy in front makes it differ from what the server sees.
 */
export interface WebSettings {
  pages: boolean;
  verify: { provider: 'none' } | { provider: Exclude<VerifyProvider, 'none'>; siteKey: string; secret: string; verifyUrl?: string };
  cookieSecret: string | null;
  publicUrl: string | null;
}

const verifyProvider = z.enum(VERIFY_PROVIDERS, { error: `one of ${VERIFY_PROVIDERS.join(', ')}` });

export function webSettings(env: Env): WebSettings {
  const pages = (setting(env, 'DECIDE_WEB', webSwitch) ?? 'on') === 'on';
  const provider = setting(env, 'DECIDE_VERIFY', verifyProvider) ?? 'none';
  let verify: WebSettings['verify'] = { provider: 'none' };
  if (provider !== 'none') {
    const siteKey = envValue(env, 'DECIDE_VERIFY_SITE_KEY');
    const secret = envValue(env, 'DECIDE_VERIFY_SECRET');
    if (!siteKey) throw new Error(`DECIDE_VERIFY=${provider} needs DECIDE_VERIFY_SITE_KEY (the widget's site key)`);
    if (!secret) throw new Error(`DECIDE_VERIFY=${provider} needs DECIDE_VERIFY_SECRET (in the environment, never a flag)`);
    verify = { provider, siteKey, secret, verifyUrl: urlOf(env, 'DECIDE_VERIFY_URL')?.href };
  }

  // As written, not trimmed: every character of a signing secret counts.
  const cookieSecret = envRaw(env, 'DECIDE_COOKIE_SECRET') || null;
  if (cookieSecret !== null && cookieSecret.length < MIN_COOKIE_SECRET) {
    throw new Error(`DECIDE_COOKIE_SECRET must be at least ${MIN_COOKIE_SECRET} characters (or unset: one is kept in the database)`);
  }

  const publicUrl = urlOf(env, 'DECIDE_PUBLIC_URL');
  if (publicUrl && publicUrl.pathname !== '/') {
    throw new Error('DECIDE_PUBLIC_URL must be an origin only (https://decide.example.com), without a path');
  }
  return { pages, verify, cookieSecret, publicUrl: publicUrl?.origin ?? null };
}

function urlOf(env: Env, name: 'DECIDE_VERIFY_URL' | 'DECIDE_PUBLIC_URL'): URL | null {
  const value = setting(env, name, httpUrl);
  return value === undefined ? null : new URL(value);
}
