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
