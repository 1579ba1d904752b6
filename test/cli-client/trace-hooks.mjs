// Module hooks (run off-thread) that append the name of every package resolved from
// node_modules to the file named in `data.out`: how the tests see what the CLI loaded.
import fs from 'node:fs';

let out;
export function initialize(data) {
  out = data.out;
}

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  const match = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(result.url);
  if (match && out) fs.appendFileSync(out, match[1] + '\n');
  return result;
}
