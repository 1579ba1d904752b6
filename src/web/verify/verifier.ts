import type { Dispatcher } from 'undici';
import { ServiceError } from '../../contract/index.js';
import type { VerifyProvider } from '../../config/web.js';
import type { ProxySettings } from '../../config/proxy.js';
import { outboundAgent } from '../../net/outbound.js';
import { siteverify } from './siteverify.js';

/**
 * Browser verification, done once per browser when it asks for a pass. `none` is for
 * local use: every browser gets a pass. Turnstile and hCaptcha put a widget on the
 * page whose token the server checks with the provider's siteverify endpoint.
 */

/** What a page needs to show the provider's widget, and what its CSP must allow for it. */
export interface Widget {
  siteKey: string;
  scriptUrl: string;
  /** The class the provider's script looks for (implicit rendering). */
  className: string;
  /** Origins the widget loads scripts, frames, styles and requests from. */
  origins: string[];
}

export interface Verifier {
  readonly provider: VerifyProvider;
  /** null for `none`: nothing to show and no third-party script. */
  readonly widget: Widget | null;
  /**
   * Resolves when the browser behind `token` passed; otherwise throws the contract's
   * error: 400 `invalid_request` (no token), 403 `verification_failed` (the provider
   * said no), 503 `verification_unavailable` (unreachable, timed out, or an answer
   * that cannot be read).
   */
  verify(token: string | undefined, ip: string): Promise<void>;
}

export interface ProviderConfig {
  provider: Exclude<VerifyProvider, 'none'>;
  siteKey: string;
  /** From the environment only; sent to the provider, never logged. */
  secret: string;
  /** The provider's siteverify endpoint; overridden only by tests (DECIDE_VERIFY_URL). */
  verifyUrl?: string;
  timeoutMs?: number;
  /** The proxy siteverify calls go through (config/proxy.ts); none when absent. */
  proxy?: ProxySettings;
}

const PROVIDERS = {
  turnstile: {
    verifyUrl: 'https://challenges.cloudflare.com/turnstile/v0/siteverify',
    scriptUrl: 'https://challenges.cloudflare.com/turnstile/v0/api.js',
    className: 'cf-turnstile',
    origins: ['https://challenges.cloudflare.com'],
    sendSiteKey: false,
  },
  hcaptcha: {
    verifyUrl: 'https://api.hcaptcha.com/siteverify',
    scriptUrl: 'https://js.hcaptcha.com/1/api.js',
    className: 'h-captcha',
    origins: ['https://hcaptcha.com', 'https://*.hcaptcha.com'],
    sendSiteKey: true,
  },
} as const;

export const DEFAULT_VERIFY_TIMEOUT_MS = 5_000;

export const noVerification: Verifier = {
  provider: 'none',
  widget: null,
  async verify() {},
};

export function providerVerifier(config: ProviderConfig): Verifier {
  const known = PROVIDERS[config.provider];
  const url = config.verifyUrl ?? known.verifyUrl;
  const timeoutMs = config.timeoutMs ?? DEFAULT_VERIFY_TIMEOUT_MS;
  // Made at the first call: a proxy URL undici cannot use then fails that verification, not the start.
  let dispatcher: Dispatcher | undefined;
  return {
    provider: config.provider,
    widget: { siteKey: config.siteKey, scriptUrl: known.scriptUrl, className: known.className, origins: [...known.origins] },
    async verify(token, ip) {
      if (token === undefined) {
        throw new ServiceError('invalid_request', 'verificationToken: required; solve the verification on the page first', undefined, [
          { field: 'verificationToken', message: 'required; solve the verification on the page first' },
        ]);
      }
      const fields: Record<string, string> = { secret: config.secret, response: token, remoteip: ip };
      if (known.sendSiteKey) fields.sitekey = config.siteKey;
      const verdict = await siteverify(
        url,
        fields,
        timeoutMs,
        () => (dispatcher ??= outboundAgent({ keepAliveTimeout: 10_000 }, config.proxy)),
      );
      if (verdict.kind === 'unavailable') {
        throw new ServiceError('verification_unavailable', `the verification provider ${verdict.reason}; try again shortly`, 5);
      }
      if (verdict.kind === 'failed') {
        const codes = verdict.errorCodes.length ? ` (${verdict.errorCodes.join(', ')})` : '';
        throw new ServiceError('verification_failed', `the browser verification did not pass${codes}; solve it again`);
      }
    },
  };
}
