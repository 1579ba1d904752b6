// `node --import` this file to make the model download's file opens slow (300 ms), as
// on a busy disk: a connection can then drop while the download opens its .part file.
import { register } from 'node:module';

const shim = `import * as fsp from 'node:fs/promises';
export * from 'node:fs/promises';
export const open = async (...args) => {
  await new Promise((resolve) => setTimeout(resolve, 300));
  return fsp.open(...args);
};`;

register(
  'data:text/javascript,' +
    encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === 'node:fs/promises' && context.parentURL?.endsWith('/engine/local/download.js')) {
    return { url: ${JSON.stringify('data:text/javascript,' + encodeURIComponent(shim))}, shortCircuit: true };
  }
  return next(specifier, context);
}`),
);
