// Types of bench/chaos/driver.js, for test/chaos/*.test.ts.

export interface ChaosCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface ChaosOptions {
  db: 'sqlite' | 'postgres';
  decisions?: number;
  clients?: number;
  passes?: number;
  keysPerPass?: number;
  stressPerTen?: number;
  engineTimeoutMs?: number;
  expiryMarginMs?: number;
  freePerSite?: number;
  rates?: Partial<Record<'5xx' | '429' | 'garbage' | 'hang' | 'reset', number>>;
  killAt?: number[];
  downMs?: number;
  terminateAt?: number[];
  pgUrl?: string;
  keep?: boolean;
  log?: (line: string) => void;
}

export interface ChaosResult {
  ok: boolean;
  losses: number;
  checks: ChaosCheck[];
  figures: {
    db: string;
    servers: number;
    decisions: number;
    clients: number;
    loadMs: number;
    totalMs: number;
    served: number;
    replayed: number;
    uncharged: number;
    overcharged: number;
    undercharged: number;
    unanswered: number;
    statuses: Record<string, number>;
    engine: { calls: number; answered: number; injected: Record<string, number> };
    faults: { kills: number; terminations: number; backendsDropped: number; errors: string[] };
    [name: string]: unknown;
  };
}

export const ROOT: string;
export const DEFAULTS: Required<Omit<ChaosOptions, 'db' | 'keep' | 'log'>>;
export function runChaos(options: ChaosOptions): Promise<ChaosResult>;
