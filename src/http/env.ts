import type { Caller } from '../contract/caller.js';

/** What middleware hands to handlers. */
export type AppEnv = {
  Variables: {
    caller: Caller;
    /** The parsed JSON body (not yet validated against the contract). */
    body: unknown;
    /** performance.now() when the request arrived. */
    startedAt: number;
    /** The key per-IP limits count by (an IPv6 address's /64); set for every request by request-context.ts. */
    clientIp: string;
    /** The client's own address, as the proxies the operator trusts report it (request-context.ts). */
    clientAddress: string;
    /** This server's own origin as the request's client sees it (request-context.ts). */
    origin: string;
    /** This request's id, sent back in `X-Request-Id` (request-id.ts). */
    requestId: string;
    /** Set on the System One routes: errors are answered in that format's shape (errors.ts). */
    errorFormat?: 'systemone';
  };
};
