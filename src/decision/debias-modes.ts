/**
 * The order-debiasing modes (debias.ts says what each does), alone in a module so the
 * CLI can list them in `--debias` without loading the decision code.
 */
export const DEBIAS_MODES = ['none', 'reverse', 'cyclic'] as const;
export type Debias = (typeof DEBIAS_MODES)[number];
