#!/usr/bin/env node
// Installs the Python tools the System One conformance tests run against `decide serve`,
// from PyPI, into a virtual environment of their own outside the package:
//
//   jevcompat, the third-party conformance suite for System One servers (`jevcompat test URL`);
//   typesafe-sdk, the format's official Python SDK (jevcompat's drop-in check uses it too);
//   schemathesis, a property-based fuzzer of OpenAPI services (`schemathesis run URL/openapi.json`);
//   openapi-python-client, a generator of Python clients from the OpenAPI document (the clients
//   it writes need httpx and attrs, which it installs with itself).
//
// For development and CI only: nothing here runs at `npm install`.
//
//   npm run tools:python             create the environment and install what is missing
//   npm run tools:python -- --check  exit 1, saying what is missing, unless all are in place
//
// The environment is $DECIDE_PYTHON_TOOLS, else $XDG_CACHE_HOME/decide/python-tools, else
// ~/.cache/decide/python-tools. test/support/python-tools.ts reads the same place.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * What is installed: jevcompat pinned (a conformance verdict must not move under us); the SDK
 * as jevcompat accepts it; schemathesis pinned too (what it generates and checks changes
 * between releases, and a fuzzer's findings should change only when decide does);
 * openapi-python-client pinned for the same reason (which schemas it can parse changes
 * between releases). httpx and attrs are checked, not pinned: the generated client imports
 * them, and the generator's own requirements decide their versions.
 */
const REQUIREMENTS = ['jevcompat==0.1.1', 'typesafe-sdk>=0.7.1,<0.8', 'schemathesis==4.32.5', 'openapi-python-client==0.29.1'];
const TOOLS = ['jevcompat', 'typesafe-sdk', 'schemathesis', 'openapi-python-client', 'httpx', 'attrs'];

function toolsDir(env = process.env) {
  if (env.DECIDE_PYTHON_TOOLS) return env.DECIDE_PYTHON_TOOLS;
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'decide', 'python-tools');
}

function fail(message) {
  console.error(`tools:python: ${message}`);
  process.exit(1);
}

/** The versions installed in the environment at `dir`, or null when it cannot say. */
function installed(dir) {
  const py = path.join(dir, 'bin', 'python');
  if (!fs.existsSync(py)) return null;
  const script = `from importlib.metadata import version\nprint(${TOOLS.map((t) => `version("${t}")`).join(', ')})`;
  try {
    const versions = execFileSync(py, ['-c', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .trim()
      .split(' ');
    return TOOLS.map((tool, i) => `${tool} ${versions[i]}`).join(', ');
  } catch {
    return null;
  }
}

function main() {
  const args = process.argv.slice(2);
  if (args.some((a) => a !== '--check'))
    fail(`unknown argument ${args.find((a) => a !== '--check')}; usage: npm run tools:python [-- --check]`);
  const dir = toolsDir();
  if (args.includes('--check')) {
    const versions = installed(dir);
    if (!versions) fail(`${TOOLS.join(', ')} are not all installed in ${dir} (run npm run tools:python)`);
    console.log(`tools:python: ${versions} in ${dir}`);
    return;
  }
  if (!fs.existsSync(path.join(dir, 'bin', 'python'))) {
    console.error(`tools:python: python3 -m venv ${dir}`);
    try {
      execFileSync('python3', ['-m', 'venv', dir], { stdio: ['ignore', 'inherit', 'inherit'] });
    } catch {
      fail('needs python3 with its venv module (apt-get install python3-venv)');
    }
  }
  try {
    execFileSync(path.join(dir, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', ...REQUIREMENTS], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
  } catch {
    fail(`pip could not install ${REQUIREMENTS.join(' ')} (is PyPI reachable?)`);
  }
  const versions = installed(dir);
  if (!versions) fail(`pip ran, but ${TOOLS.join(', ')} cannot all be found in ${dir}`);
  console.log(`${versions}: ${dir}`);
}

main();
