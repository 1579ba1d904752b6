// `node --import` this file to run decide as if node-llama-cpp (an optional peer
// dependency) had not been installed beside it: resolving it fails the way a missing
// package does.
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`
export async function resolve(specifier, context, next) {
  if (specifier === 'node-llama-cpp' || specifier.startsWith('node-llama-cpp/')) {
    const error = new Error("Cannot find package 'node-llama-cpp'");
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  return next(specifier, context);
}`),
);
