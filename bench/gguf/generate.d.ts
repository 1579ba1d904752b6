// Types for generate.js, which the tests import to write their tiny model
// (test/support/tiny-model.ts); the bench itself is plain JavaScript.

export declare const CACHE: string;

/** `quant`: the size's own weight type by default (`test`: f16), else q4_0. */
export declare function modelPath(size: string, quant?: 'q4_0' | 'q8_0' | 'f16', dir?: string): string;

export declare function ensureModel(
  size: string,
  options?: { quant?: 'q4_0' | 'q8_0' | 'f16'; dir?: string; progress?: (written: number, total: number) => void },
): { path: string; parameters: number; bytes: number; generated: boolean };
