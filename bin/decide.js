#!/usr/bin/env node
// The build (`npm run build`: a clone's `npm install`, and `npm pack` for the tarball)
// compiles src/ into dist/; this stub only loads it.
import('../dist/cli/main.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')) {
    console.error('decide: the build is missing; run `npm run build` in the package folder.');
    process.exit(70);
  }
  throw error;
});
