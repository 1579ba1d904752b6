#!/usr/bin/env node
// Builds llama.cpp's OpenAI-compatible `llama-server` from the llama.cpp sources that the
// PyPI sdist of llama-cpp-python vendors, so that decide's `openai` engine can be measured
// and tested against a real server on the real models of scripts/real-models.mjs.
//
// For development, benchmarks and CI, never at `npm install`: .ci/run builds it when the
// cache lacks it (some 15-20 minutes on two cores, nothing once built), so that
// test/engine/llama-server.test.ts runs there rather than skips. The sdist is fetched with
// `pip download --no-deps --no-binary :all:` (python3 and pip, nothing installed), checked
// against its pinned SHA-256, and only the `llama-server` target is built with cmake, for
// x86-64 CPUs with AVX2; the sources and the build tree are then removed.
//
//   node scripts/llama-server.mjs            build it unless it is in place, then print where
//   node scripts/llama-server.mjs --check    exit 1, saying what is missing, unless it is in place
//
// The binary goes to $XDG_CACHE_HOME/decide/llama-server, else ~/.cache/decide/llama-server,
// under the pinned version: <dir>/<version>/llama-server. bench/lib/llama-server.js, which
// the bench row and test/engine/llama-server.test.ts start it with, reads the same place.

import { execFileSync, spawnSync } from 'node:child_process';
import { sha256Of } from './lib/sha256.mjs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Pinned: a cache-hit figure should move only when decide's prompts do, not the server under them. */
const SDIST = {
  version: '0.3.36',
  requirement: 'llama-cpp-python==0.3.36',
  file: 'llama_cpp_python-0.3.36.tar.gz',
  sha256: '832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e',
  llamaCpp: 'llama_cpp_python-0.3.36/vendor/llama.cpp',
};

/**
 * Only the server, its libraries linked in, no network features (no HTTPS, no model
 * downloads, no web UI fetched). For any x86-64 CPU with AVX2 rather than this one
 * (-march=native): a pinned build that measures alike on every machine, and no AMX
 * kernels, which a native build on a Sapphire Rapids VM compiled in and which then
 * faulted on the first matrix product (the VM does not grant the tile state).
 */
const CMAKE_OPTIONS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DBUILD_SHARED_LIBS=OFF',
  '-DGGML_NATIVE=OFF',
  '-DLLAMA_OPENSSL=OFF',
  '-DLLAMA_BUILD_UI=OFF',
  '-DLLAMA_USE_PREBUILT_UI=OFF',
  '-DLLAMA_BUILD_TESTS=OFF',
  '-DLLAMA_BUILD_EXAMPLES=OFF',
];

function cacheDir(env = process.env) {
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'decide', 'llama-server');
}

function fail(message) {
  console.error(`llama-server: ${message}`);
  process.exit(1);
}

/** The binary's `--version` line (it prints it on stderr), or null when it is absent or does not run. */
function installed(binary) {
  if (!fs.existsSync(binary)) return null;
  const { status, stdout, stderr } = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (status !== 0) return null;
  return `${stdout}${stderr}`.match(/version: .*/)?.[0] ?? 'version unknown';
}

function run(command, args, options = {}) {
  console.error(`llama-server: ${command} ${args.join(' ')}`);
  execFileSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
}

function download(work) {
  const file = path.join(work, SDIST.file);
  if (!fs.existsSync(file) || sha256Of(file) !== SDIST.sha256) {
    try {
      run('python3', [
        '-m',
        'pip',
        'download',
        '--no-deps',
        '--no-binary',
        ':all:',
        '--disable-pip-version-check',
        '-q',
        '-d',
        work,
        SDIST.requirement,
      ]);
    } catch {
      fail(`pip could not download ${SDIST.requirement} (needs python3 with pip, and PyPI reachable)`);
    }
  }
  if (!fs.existsSync(file)) fail(`pip downloaded ${SDIST.requirement}, but not as ${SDIST.file}`);
  const got = sha256Of(file);
  if (got !== SDIST.sha256) fail(`${SDIST.file} has SHA-256 ${got}, not the pinned ${SDIST.sha256}: refusing it`);
  return file;
}

/** Two jobs under `nice`: the build shares the machine with whatever else runs on it. */
function build(work, sdist) {
  run('tar', ['-xzf', sdist, '-C', work]);
  const source = path.join(work, SDIST.llamaCpp);
  const tree = path.join(work, 'build');
  try {
    run('nice', ['cmake', '-S', source, '-B', tree, ...CMAKE_OPTIONS]);
    run('nice', ['cmake', '--build', tree, '--target', 'llama-server', '-j', '2']);
  } catch {
    fail('the build failed (needs cmake and a C++17 compiler: apt-get install cmake g++)');
  }
  return path.join(tree, 'bin', 'llama-server');
}

function main() {
  const args = process.argv.slice(2);
  if (args.some((a) => a !== '--check'))
    fail(`unknown argument ${args.find((a) => a !== '--check')}; usage: node scripts/llama-server.mjs [--check]`);
  const dir = path.join(cacheDir(), SDIST.version);
  const binary = path.join(dir, 'llama-server');
  if (args.includes('--check')) {
    const version = installed(binary);
    if (!version) fail(`${binary} is missing or does not run (run node scripts/llama-server.mjs)`);
    console.log(`llama-server: ${version} at ${binary}`);
    return;
  }
  if (!installed(binary)) {
    const started = Date.now();
    const work = path.join(dir, 'work');
    fs.mkdirSync(work, { recursive: true });
    const built = build(work, download(work));
    fs.copyFileSync(built, `${binary}.part`);
    fs.chmodSync(`${binary}.part`, 0o755);
    fs.renameSync(`${binary}.part`, binary);
    // The sources and the build tree are only a way in: the binary is what is kept.
    fs.rmSync(work, { recursive: true, force: true });
    const minutes = ((Date.now() - started) / 60000).toFixed(1);
    const megabytes = (fs.statSync(binary).size / 1e6).toFixed(1);
    console.error(`llama-server: built in ${minutes} min, ${megabytes} MB`);
  }
  console.log(`llama-server from llama-cpp-python ${SDIST.version} (${installed(binary)}): ${binary}`);
}

main();
