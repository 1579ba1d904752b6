export interface PassInfo {
  passId: string;
  passCredits: number;
  fundedEver: boolean;
  createdAt: string;
  keys: { id: string; keyHint: string; createdAt: string; revokedAt: string | null }[];
}

/** A pass in a listing: its balance and how many keys it holds. */
export interface PassSummary {
  passId: string;
  passCredits: number;
  fundedEver: boolean;
  createdAt: string;
  keys: number;
  activeKeys: number;
}

/** Passes as the operator keeps them: created, funded, looked at. */
export interface Passes {
  create(now: Date): Promise<{ passId: string; createdAt: string }>;
  /** Adds a funding entry; throws if the pass does not exist or credits < 1. */
  fund(passId: string, credits: number, now: Date, note?: string): Promise<{ passCredits: number }>;
  /** The balance and the keys, as of one moment; null for an unknown pass. */
  show(passId: string): Promise<PassInfo | null>;
  /** Every pass, oldest first. */
  list(): Promise<PassSummary[]>;
}
