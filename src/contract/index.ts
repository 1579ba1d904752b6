export * from './decision.js';
export * from './answer.js';
export * from './records.js';
export * from './errors.js';
export { codePoints } from './text.js';
export * from './key.js';
export * from './web.js';
