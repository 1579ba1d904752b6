/**
 * The three modes of a decision, without zod: the CLI's flag definitions name them
 * when it starts, and `decide --help` should not pay for loading the schemas.
 */
export const MODES = ['choice', 'noul', 'score'] as const;
