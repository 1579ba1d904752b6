// `node --import ./trace-imports.mjs …`: registers trace-hooks.mjs, writing to $TRACE_PACKAGES.
import { register } from 'node:module';

register('./trace-hooks.mjs', import.meta.url, { data: { out: process.env.TRACE_PACKAGES } });
