import { createRequire } from 'node:module';

/**
 * The package's version, read from its package.json (which every install ships): the
 * one place it is written. This file sits one folder below the package root both as
 * src/version.ts and as the built dist/version.js, so one relative path serves a
 * clone, its tests and the installed package.
 */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
