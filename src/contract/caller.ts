/**
 * Who is asking, and through which door: the words the channels (http, mcp, web),
 * the service and the ledger share about a request's caller.
 */

/** Who is asking: resolved from a key fingerprint. */
export interface Caller {
  keyId: string;
  passId: string;
  keyHint: string;
}

/** The channel a decision came through: the API (and MCP, which rides on it), or the pages. */
export type Channel = 'api' | 'web';
