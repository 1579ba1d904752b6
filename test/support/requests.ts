/** Valid requests of each mode, as a caller would write them. */
export const CHOICE = {
  mode: 'choice',
  question: 'Which database should the team adopt for the new service?',
  context:
    'The team knows SQL well. The service needs transactions across several tables. ' +
    'Traffic is modest, about fifty requests a second. Nobody on the team has run MongoDB in production.',
  options: ['PostgreSQL', 'MongoDB'],
} as const;

export const NOUL = {
  mode: 'noul',
  question: 'Should we ship the release on Friday?',
  context: 'All tests pass. The on-call engineer is away next week. Two customers asked for the fix.',
} as const;

export const SCORE = {
  mode: 'score',
  question: 'How risky is this migration?',
  context: 'The migration adds a nullable column. It runs on a table of ten million rows. A backup exists.',
  levels: ['low', 'medium', 'high'],
} as const;

/**
 * `request` with one more key, as `JSON.parse` would make it: an own `__proto__` or
 * `constructor` is a key like any other (a literal `{ __proto__: … }` would set the
 * prototype instead). Its value would make a stress decision of it, were it read.
 */
export function withKey(request: object, key: string): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(request));
  Object.defineProperty(copy, key, { value: { depth: 'stress' }, enumerable: true, writable: true, configurable: true });
  return copy;
}
