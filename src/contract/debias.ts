/**
 * The order-debiasing modes (decision/debias.ts says what each does). Shared
 * vocabulary: the decision code runs them, the configuration reads them from
 * `--debias` / `DECIDE_DEBIAS`, the ledger keys calibrations by them. Alone in a
 * module without zod, so the CLI can list them in `--debias` without loading the
 * decision code.
 */
export const DEBIAS_MODES = ['none', 'reverse', 'cyclic'] as const;
export type Debias = (typeof DEBIAS_MODES)[number];
