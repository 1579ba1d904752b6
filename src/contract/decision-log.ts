/**
 * The optional decision log's words, shared by the configuration, the ledger, the
 * service and the pass page (docs/configuration.md, "The decision log").
 */

/** What is kept of each decision: nothing, what was decided and at what cost, or that and the text asked. */
export const DECISION_LOG_LEVELS = ['off', 'metadata', 'full'] as const;
export type DecisionLogLevel = (typeof DECISION_LOG_LEVELS)[number];

/**
 * The door a decision came through, as its log names it: the API's channel is both
 * the HTTP API and the MCP tool server, which the log tells apart.
 */
export type Door = 'api' | 'mcp' | 'web';
