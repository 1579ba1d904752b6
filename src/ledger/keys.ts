/** Who is asking: resolved from a key fingerprint. */
export interface Caller {
  keyId: string;
  passId: string;
  keyHint: string;
}

export interface CreatedKey {
  /** Shown once, never stored. */
  key: string;
  keyId: string;
  keyHint: string;
  passId: string;
  createdAt: string;
}

export interface RevokedKey {
  keyHint: string;
  revokedAt: string;
}

/** API keys: made by the operator, presented by callers, revoked by either. */
export interface Keys {
  /** A new key linked to `passId`, or to a new pass when omitted; throws for an unknown pass. */
  create(now: Date, passId?: string): Promise<CreatedKey>;
  /** The active key whose SHA-256 fingerprint this is, or null (unknown or revoked). */
  authenticate(fingerprint: Buffer): Promise<Caller | null>;
  /** Revokes an active key; null when it was not active. */
  revoke(keyId: string, now: Date): Promise<RevokedKey | null>;
  /** The key's free decisions used on the UTC day of `now`, and its pass's credits; throws for an unknown pass. */
  usage(caller: Caller, now: Date): Promise<{ freeUsed: number; passCredits: number }>;
}
