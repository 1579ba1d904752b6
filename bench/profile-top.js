#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from BENCH_CPU_PROF=1): self time by function and by
// package/file, the biggest first. Usage: node bench/profile-top.js [file.cpuprofile] [N]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'profiles');
let file = process.argv[2];
if (!file) {
  const found = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  if (found.length === 0) throw new Error(`no .cpuprofile in ${dir}`);
  file = path.join(dir, found.sort((a, b) => statSync(path.join(dir, b)).mtimeMs - statSync(path.join(dir, a)).mtimeMs)[0]);
}
const top = Number(process.argv[3] ?? 30);
const profile = JSON.parse(readFileSync(file, 'utf8'));

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + (dt[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);

function where(url) {
  if (!url) return '(native/vm)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return url;
  const d = url.indexOf('/dist/');
  return d >= 0 ? 'decide ' + url.slice(d + 1) : url;
}

const fnTime = new Map();
const pkgTime = new Map();
for (const [id, us] of self) {
  const { callFrame } = byId.get(id);
  const fn = `${callFrame.functionName || '(anonymous)'}  ${where(callFrame.url)}${callFrame.url ? ':' + (callFrame.lineNumber + 1) : ''}`;
  fnTime.set(fn, (fnTime.get(fn) ?? 0) + us);
  const pkg = where(callFrame.url).replace(/^decide (dist\/[^/]+).*/, 'decide $1');
  pkgTime.set(pkg, (pkgTime.get(pkg) ?? 0) + us);
}
// Inclusive time: a sample counts once for every distinct function on its stack.
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n) =>
  `${n.callFrame.functionName || '(anonymous)'}  ${where(n.callFrame.url)}${n.callFrame.url ? ':' + (n.callFrame.lineNumber + 1) : ''}`;
const incl = new Map();
for (const [id, us] of self) {
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const key = label(byId.get(at));
    if (seen.has(key)) continue;
    seen.add(key);
    incl.set(key, (incl.get(key) ?? 0) + us);
  }
}
const idle = [...fnTime].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, us]) => a + us, 0);

const show = (m, n) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`)
    .join('\n');
const inclusive = [...incl].filter(([k]) => !/^\((root|idle|program)\)/.test(k));
console.log(
  `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${((total - idle) / 1e6).toFixed(1)} s not idle (percentages are of all samples)\n\ninclusive time (whole stack):\n${show(new Map(inclusive), top)}\n\nself time by package / dist folder:\n${show(pkgTime, 20)}\n\nself time by function:\n${show(fnTime, top)}`,
);
