import { createRequire } from 'node:module';

/**
 * node-llama-cpp is an optional peer dependency: a development install has it (a dev
 * dependency too), an install of the package has it only when added beside decide,
 * and without it the local engine cannot run at all. Tests that run the local engine
 * skip, saying so, when it cannot be resolved:
 *
 *   describe.skipIf(!LOCAL_RUNTIME)(`… ${NEEDS_LOCAL_RUNTIME}`, () => …)
 *
 * Tests of how the product behaves *without* it (the resolve hook in
 * test/support/hooks/without-node-llama-cpp.mjs, MISSING_RUNTIME) run either way.
 */
function resolvable(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/** Whether node-llama-cpp is installed, as the local engine would load it. */
export const LOCAL_RUNTIME = resolvable('node-llama-cpp');

/** Said in the title of every test that needs it, so a skipped one says why. */
export const NEEDS_LOCAL_RUNTIME = '(needs node-llama-cpp, an optional peer dependency)';
