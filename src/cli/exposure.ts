import { isIP } from 'node:net';

/** Loopback: 127.0.0.0/8, ::1, localhost. Anything else (0.0.0.0, a LAN address, a name) is reachable by others. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  return isIP(bare) === 4 && bare.startsWith('127.');
}

/**
 * What an operator binding beyond loopback should hear at start: with verification
 * `none`, anyone who can reach the port takes keys and free decisions from a browser,
 * as fast as the per-IP limits let them.
 */
export function exposureWarnings(host: string, verification: string, pages: boolean): string[] {
  if (isLoopback(host) || !pages || verification !== 'none') return [];
  return [
    `warning: listening on ${host}, beyond this machine, with DECIDE_VERIFY=none: anyone who reaches it can make keys ` +
      'from a browser without a check. Set DECIDE_VERIFY=turnstile (or hcaptcha), or DECIDE_WEB=off to turn browser keys off',
  ];
}
