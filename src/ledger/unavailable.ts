import { ServiceError } from '../contract/index.js';

/** Seconds a client is told to wait before trying again. */
export const LEDGER_RETRY_AFTER_S = 2;

/**
 * 503 `ledger_unavailable`: the ledger cannot be written now, and nothing was charged.
 * `cause` (the driver's error) stays attached for those that act on its code, such as
 * the operator commands' exit codes; it never reaches an answer's body.
 */
export function ledgerUnavailable(why: string, cause?: unknown): ServiceError {
  const error = new ServiceError(
    'ledger_unavailable',
    `the ledger cannot be written now (${why}); nothing was charged, retry shortly`,
    LEDGER_RETRY_AFTER_S,
  );
  if (cause !== undefined) Object.defineProperty(error, 'cause', { value: cause });
  return error;
}

/**
 * The store with every failure that `why` recognises as the database being away
 * answered as 503 `ledger_unavailable` instead of a 500: one place for every method,
 * channel-neutral, rather than a catch in each of them.
 */
export function answeringUnavailable<S extends object>(store: S, why: (error: unknown) => string | null): S {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        return result.catch((error: unknown) => {
          const reason = why(error);
          throw reason === null ? error : ledgerUnavailable(reason, error);
        });
      };
    },
  });
}
