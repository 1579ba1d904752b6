/**
 * The contract's schemas of the answers the client reads, in one module the client
 * loads while its first request is under way (client.ts), so a short-lived caller
 * such as `decide ask` sends before it pays for building them.
 */
export { DecisionResponse } from '../contract/answer.js';
export { describeIssues } from '../contract/errors.js';
export { KeyRevoked, Metrics, Usage } from '../contract/records.js';
