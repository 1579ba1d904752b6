/**
 * The package's public entry (`import { DecideClient } from 'decide-service'`): the typed
 * client, its errors, and the contract it speaks. It loads no server code, no CLI and
 * no terminal UI.
 */
export {
  DecideClient,
  type Answer,
  type CallOptions,
  type DecideClientOptions,
  type DecideOptions,
  type DecisionRequestInput,
  type RawCalls,
  type RetryEvent,
} from './client.js';
export { CLIENT_ERROR_CODES, DecideError, type ClientErrorCode, type DecideErrorCode } from './errors.js';
export { DEFAULT_RETRY, type RetryPolicy } from './retry.js';

// The contract: schemas (to validate stored or forwarded payloads) and their types.
// The server's error class (ServiceError) is deliberately not re-exported: the
// client's DecideError is the one callers catch.
export {
  Access,
  ChoiceResponse,
  DecisionRequest,
  DecisionResponse,
  DecisionResult,
  ErrorBody,
  ERROR_STATUS,
  isWellFormedKey,
  KEY_PREFIX,
  KeyRevoked,
  Metrics,
  Mode,
  MODES,
  NoulResponse,
  ScoreResponse,
  Signal,
  Stress,
  StressCheck,
  Timing,
  Usage,
  type ErrorCode,
  type MetricsGroup,
} from '../contract/index.js';
