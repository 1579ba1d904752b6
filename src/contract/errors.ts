import { z } from 'zod';
import { ERROR_STATUS, type ErrorCode as Code } from './error-codes.js';

export { ERROR_STATUS };
export type ErrorCode = Code;
export const ErrorCode = z.enum(Object.keys(ERROR_STATUS) as [Code, ...Code[]]);

/** A request's id (http/request-id.ts): the caller's own X-Request-Id when it was a plain token, else one made for it. */
export const RequestId = z.string().regex(/^[\w=-]{1,128}$/);

/** One problem of an invalid body, by the field it names (`options.1`, `keyId`, `body`). */
export const FieldIssue = z.strictObject({ field: z.string(), message: z.string() });
export type FieldIssue = z.infer<typeof FieldIssue>;

export const ErrorBody = z
  .strictObject({
    error: z.string().meta({ description: 'A sentence naming the field or the cause.' }),
    code: ErrorCode,
    issues: z
      .array(FieldIssue)
      .optional()
      .meta({ description: 'On 400 invalid_request: each problem by the field it names (the pages show them beside the field).' }),
    requestId: RequestId.optional().meta({
      description: "The request's id, as in its X-Request-Id header and the server's log lines: the one to quote when reporting a failure.",
    }),
  })
  .meta({ id: 'Error' });
export type ErrorBody = z.infer<typeof ErrorBody>;

/**
 * A failure the service answers with: the code fixes the status; `retryAfter`
 * (seconds) becomes the `Retry-After` header.
 */
export class ServiceError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly retryAfter?: number,
    readonly issues?: FieldIssue[],
  ) {
    super(message);
    this.name = 'ServiceError';
    this.status = ERROR_STATUS[code];
  }

  toBody(): ErrorBody {
    return this.issues ? { error: this.message, code: this.code, issues: this.issues } : { error: this.message, code: this.code };
  }
}

/**
 * Sentences for what zod would otherwise say in its own words ("Invalid input: expected
 * string, received undefined"): a missing field `is required`, a value of the wrong
 * kind `must be a string (got a number)`. Passed to each parse of a request
 * (`schema.safeParse(body, IN_WORDS)`): a per-parse map, not zod's global one, so the
 * MCP SDK's own schemas keep their words; a schema's own message still wins.
 */
export const IN_WORDS = {
  error(issue: z.core.$ZodRawIssue): string | undefined {
    if (issue.code !== 'invalid_type') return undefined;
    if (issue.input === undefined) return 'is required';
    return `must be ${withArticle(issue.expected)} (got ${withArticle(kindOf(issue.input))})`;
  },
};

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function withArticle(kind: string): string {
  if (kind === 'null') return 'null';
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

/** 400 `invalid_request` from a zod error: the sentence of `describeIssues` plus every problem by field. */
export function invalidRequest(error: z.ZodError): ServiceError {
  return new ServiceError('invalid_request', describeIssues(error), undefined, fieldIssues(error));
}

/** The problems of a zod error, one per field (an unknown key is a problem of that key). */
export function fieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.slice(0, 20).flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ field: [...issue.path, k].join('.'), message: 'not allowed here' }));
    }
    const field =
      issue.path.length > 0
        ? issue.path.join('.')
        : issue.code === 'invalid_union' && 'discriminator' in issue
          ? String(issue.discriminator)
          : 'body';
    return [{ field, message: issue.message }];
  });
}

/** One sentence naming the offending field, from a zod error. */
export function describeIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.map((k) => [...issue.path, k].join('.'));
      return `${keys.join(', ')}: not allowed here`;
    }
    if (issue.code === 'invalid_union' && 'discriminator' in issue) {
      const field = issue.path.length ? issue.path.join('.') : String(issue.discriminator);
      return `${field}: ${issue.message}`;
    }
    const field = issue.path.length ? issue.path.join('.') : 'body';
    return `${field}: ${issue.message}`;
  });
  return parts.join('; ');
}
