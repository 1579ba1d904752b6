import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The Python tools the System One conformance tests run: jevcompat (the third-party
 * conformance suite) and typesafe-sdk (the format's official Python SDK), installed from
 * PyPI by `npm run tools:python` (scripts/python-tools.mjs) into a virtual environment
 * outside the package: $DECIDE_PYTHON_TOOLS, else $XDG_CACHE_HOME/decide/python-tools,
 * else ~/.cache/decide/python-tools. Tests that need them skip, saying how to get them,
 * unless DECIDE_REQUIRE_PYTHON_TOOLS=1 (CI sets it): then missing tools fail them.
 */

const DIR =
  process.env.DECIDE_PYTHON_TOOLS || path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'decide', 'python-tools');

function found(): { python: string; jevcompat: string } | null {
  const python = path.join(DIR, 'bin', 'python');
  const jevcompat = path.join(DIR, 'bin', 'jevcompat');
  if (fs.existsSync(python) && fs.existsSync(jevcompat)) return { python, jevcompat };
  if (process.env.DECIDE_REQUIRE_PYTHON_TOOLS === '1') {
    throw new Error(`jevcompat and typesafe-sdk are missing from ${DIR} and DECIDE_REQUIRE_PYTHON_TOOLS=1: run npm run tools:python`);
  }
  return null;
}

export const PYTHON_TOOLS = found();

/** Said in the title of every test that needs them, so a skipped one says how to run it. */
export const NEEDS_PYTHON_TOOLS = '(needs jevcompat and typesafe-sdk: npm run tools:python)';

/**
 * Schemathesis, the OpenAPI fuzzer, from the same environment: its own path, so the
 * System One tests do not depend on it, under the same rule (skip unless CI requires it).
 */
function foundSchemathesis(): string | null {
  const bin = path.join(DIR, 'bin', 'schemathesis');
  if (fs.existsSync(bin)) return bin;
  if (process.env.DECIDE_REQUIRE_PYTHON_TOOLS === '1') {
    throw new Error(`schemathesis is missing from ${DIR} and DECIDE_REQUIRE_PYTHON_TOOLS=1: run npm run tools:python`);
  }
  return null;
}

export const SCHEMATHESIS = foundSchemathesis();

export const NEEDS_SCHEMATHESIS = '(needs schemathesis: npm run tools:python)';

/**
 * openapi-python-client, the generator of Python clients from the OpenAPI document, from
 * the same environment (the clients it writes import httpx and attrs, installed with it),
 * under the same rule.
 */
function foundOpenApiPythonClient(): { python: string; generator: string } | null {
  const python = path.join(DIR, 'bin', 'python');
  const generator = path.join(DIR, 'bin', 'openapi-python-client');
  if (fs.existsSync(python) && fs.existsSync(generator)) return { python, generator };
  if (process.env.DECIDE_REQUIRE_PYTHON_TOOLS === '1') {
    throw new Error(`openapi-python-client is missing from ${DIR} and DECIDE_REQUIRE_PYTHON_TOOLS=1: run npm run tools:python`);
  }
  return null;
}

export const OPENAPI_PYTHON_CLIENT = foundOpenApiPythonClient();

export const NEEDS_OPENAPI_PYTHON_CLIENT = '(needs openapi-python-client: npm run tools:python)';
