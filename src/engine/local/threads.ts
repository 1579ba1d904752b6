import { availableParallelism } from 'node:os';

/**
 * llama.cpp threads for the local engine when the operator does not choose: half
 * the cores the process may use, at least one. llama.cpp's threads meet at a
 * barrier after every step, so one thread the scheduler puts aside stalls all the
 * others: on a 2-core machine shared with other work, 2 threads answered about 9×
 * fewer decisions a second than 1 (docs/local-engine.md has the figures). Half
 * also leaves a core to the HTTP server and the ledger, and SMT siblings add little
 * to llama.cpp's arithmetic.
 */
export function defaultThreads(cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / 2));
}
