#!/usr/bin/env node
// npm's `prepare`, which runs on a clone's `npm install` (and on `npm pack` and
// `npm publish`, after `prepack` has built). A clone needs dist/ for `npm test` and for
// `decide` itself, so it builds when it can; the compiler is a dev dependency, so under
// `npm install --omit=dev` it keeps the dist/ there is and says so rather than failing
// the install. An install of the packed package never runs this: dist/ is in the tarball.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// `prepack` has just built: a second build would only take the time again.
if (['pack', 'publish'].includes(process.env.npm_command ?? '')) process.exit(0);

let compiler = true;
try {
  createRequire(path.join(root, 'package.json')).resolve('typescript/package.json');
} catch {
  compiler = false;
}
if (!compiler) {
  const built = fs.existsSync(path.join(root, 'dist', 'cli', 'main.js'));
  console.error(
    built
      ? 'decide: TypeScript is not installed (npm install --omit=dev?): keeping the dist/ already built.'
      : 'decide: TypeScript is not installed (npm install --omit=dev?), so dist/ is not built: `decide` needs it.\n' +
          '  Run `npm install` with the dev dependencies, or install the packed package, which holds dist/.',
  );
  process.exit(0);
}

// The build script of package.json, through the npm that runs this one when there is one.
const npm = process.env.npm_execpath;
const build = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
process.exit(build.status ?? 1);
