import { randomBytes } from 'node:crypto';
import type { ProxySettings } from '../config/proxy.js';
import type { WebSettings } from '../config/web.js';
import type { Store } from '../ledger/store.js';
import { noVerification, providerVerifier, type Verifier } from './verify/verifier.js';

/** The browser side as it runs: the verifier the settings (config/web.ts) name, the cookie's secret and the public origin. */
export interface WebConfig {
  verifier: Verifier;
  cookieSecret: string | null;
  publicUrl: string | null;
}

export const COOKIE_SECRET_SETTING = 'cookie_secret';

/** The browser side from its settings; its verifier calls the provider through `proxy`. */
export function webConfig(settings: WebSettings, proxy: ProxySettings): WebConfig {
  const { verify, cookieSecret, publicUrl } = settings;
  const verifier = verify.provider === 'none' ? noVerification : providerVerifier({ ...verify, proxy });
  return { verifier, cookieSecret, publicUrl };
}

/** The operator's cookie secret, or the one the database keeps (created at `now` by the first server to ask). */
export async function resolveCookieSecret(config: WebConfig, store: Store, now: Date): Promise<string> {
  return config.cookieSecret ?? store.web.setting(COOKIE_SECRET_SETTING, randomBytes(32).toString('base64url'), now);
}
