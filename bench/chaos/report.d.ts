// Types of bench/chaos/report.js, for test/chaos/*.test.ts.
import type { ChaosResult } from './driver.js';

export function chaosTable(results: ChaosResult[]): string;
export function failedChecks(results: ChaosResult[]): string;
