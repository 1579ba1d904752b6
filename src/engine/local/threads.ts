import { availableParallelism } from 'node:os';
import { setting } from '../../config/parse.js';
import { threads } from '../../config/schemas.js';
import { MAX_THREADS, type Env } from '../../config/variables.js';

export { MAX_THREADS };

/**
 * llama.cpp threads for the local engine when the operator does not choose: half
 * the cores the process may use, at least one. llama.cpp's threads meet at a
 * barrier after every step, so one thread the scheduler puts aside stalls all the
 * others: on a 2-core machine shared with other work, 2 threads answered about 9×
 * fewer decisions a second than 1 (README, Local engine, has the figures). Half
 * also leaves a core to the HTTP server and the ledger, and SMT siblings add little
 * to llama.cpp's arithmetic.
 */
export function defaultThreads(cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / 2));
}

/**
 * `DECIDE_THREADS` (which `--threads` sets): a whole number from 1 to MAX_THREADS,
 * else the default. A bad value throws an Error naming the variable.
 */
export function threadsFromEnv(env: Env = process.env): number {
  return setting(env, 'DECIDE_THREADS', threads) ?? defaultThreads();
}
