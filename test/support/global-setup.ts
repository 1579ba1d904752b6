import { ensureTinyModel } from './tiny-model.js';

/** Before any test file: the tiny model the local-engine tests load (tiny-model.ts). */
export default function setup(): void {
  ensureTinyModel();
}
