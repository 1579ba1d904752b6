import {
  ServiceError,
  type DecisionRequest,
  type KeyCreated,
  type KeyNamed,
  type KeyRevoked,
  type PassRecord,
  type WebDecisionRequest,
} from '../contract/index.js';
import type { DayUsage, Store } from '../ledger/store.js';
import { secondsToMidnight } from '../service/clock.js';
import { KEYS_PER_IP_PER_DAY, PASSES_PER_IP_PER_DAY } from '../service/limits.js';
import type { DecideAnswer, DecisionService } from '../service/service.js';
import type { Caller } from '../contract/caller.js';
import { type DecisionLogView, RECENT_DECISIONS } from './pages/decision-log.js';
import { utcDay } from '../contract/utc-day.js';

/** What the pass page shows beyond the pass's record. */
export interface PassDashboard {
  /** When the page is drawn: its words ("today", "3 days ago") count from it. */
  now: Date;
  /** Each key's name (the operator's, or the page's) and last use, by key id. */
  keys: Record<string, { name: string | null; lastUsedAt: string | null }>;
  /** The pass's decisions and credits of the last 30 UTC days, oldest first. */
  usage: DayUsage[];
}

/**
 * What the browser's routes do with a pass: create it (at most 5 per IP per UTC day),
 * its record and the pass page's figures, its keys (created at most 2 per IP per UTC
 * day, or as a funded pass's replacement; named and revoked by id), and decisions paid by one of
 * its keys through the one decision path every channel shares.
 */
export class PassDesk {
  constructor(
    private readonly store: Store,
    private readonly service: DecisionService,
  ) {}

  async record(passId: string): Promise<PassRecord | null> {
    const now = this.service.now();
    const pass = await this.store.passes.show(passId);
    if (!pass) return null;
    const used = await this.store.web.freeUsage(passId, now);
    return {
      passId: pass.passId,
      passCredits: pass.passCredits,
      fundedEver: pass.fundedEver,
      keys: pass.keys.map((k) => ({ ...k, freeUsed: used[k.id] ?? 0 })),
      freeLimit: this.service.limits.freePerKey,
      day: utcDay(now),
    };
  }

  /** The pass's latest decisions, as the decision log keeps them; null when the log is off. */
  async recentDecisions(passId: string): Promise<DecisionLogView | null> {
    if (this.service.decisionLog === 'off') return null;
    const entries = await this.store.decisions.recent(passId, RECENT_DECISIONS);
    return { entries, now: this.service.now() };
  }

  /**
   * The pass page's figures. The uses this server noted are written first (as the
   * operator's listing does), so a key used a moment ago does not read "never"; a
   * failed write leaves them for the next flush and the page a minute behind.
   */
  async dashboard(passId: string): Promise<PassDashboard> {
    const now = this.service.now();
    await this.store.keys.flushUse().catch(() => undefined);
    const [keys, usage] = await Promise.all([this.store.keys.list({ passId }), this.store.web.history(passId, now)]);
    return { now, keys: Object.fromEntries(keys.map((k) => [k.id, { name: k.name, lastUsedAt: k.lastUsedAt }])), usage };
  }

  async createPass(ip: string): Promise<string> {
    const now = this.service.now();
    const created = await this.store.web.createPass({ ip, perIpLimit: PASSES_PER_IP_PER_DAY }, now);
    if (!created) {
      throw new ServiceError(
        'rate_limited',
        `this network has verified ${PASSES_PER_IP_PER_DAY} browsers today, the most a day; more can be verified after the next UTC midnight`,
        secondsToMidnight(now),
      );
    }
    return created.passId;
  }

  /**
   * A new key on the pass. Refused (429), a pass that holds nothing is removed with
   * the refusal, so that the browser's first try leaves no empty pass behind.
   */
  async createKey(passId: string, ip: string): Promise<KeyCreated> {
    const now = this.service.now();
    const created = await this.store.web.createKey({ passId, ip, perIpLimit: KEYS_PER_IP_PER_DAY }, now);
    if (!created) {
      throw new ServiceError(
        'rate_limited',
        `this network has created ${KEYS_PER_IP_PER_DAY} keys today, the most a day; more can be created after the next UTC midnight`,
        secondsToMidnight(now),
      );
    }
    return { id: created.keyId, key: created.key, keyHint: created.keyHint, createdAt: created.createdAt };
  }

  async revokeKey(passId: string, keyId: string): Promise<KeyRevoked> {
    const revoked = await this.store.web.revokeKey(passId, keyId, this.service.now());
    if (!revoked) throw new ServiceError('not_found', `this pass has no active key ${keyId}`);
    return { revoked: true, ...revoked };
  }

  /** Names an active key of the pass, or clears its name (null); 404 for any other id. */
  async nameKey(passId: string, keyId: string, name: string | null): Promise<KeyNamed> {
    if (!(await this.store.web.nameKey(passId, keyId, name))) throw new ServiceError('not_found', `this pass has no active key ${keyId}`);
    return { id: keyId, name };
  }

  /** The caller of the key that pays for a web decision; 400 naming `keyId` when it is not an active key of the pass. */
  async payer(passId: string, keyId: string): Promise<Caller> {
    const caller = await this.store.web.caller(passId, keyId);
    if (caller) return caller;
    const message = 'not an active key of this pass';
    throw new ServiceError('invalid_request', `keyId: ${message}`, undefined, [{ field: 'keyId', message }]);
  }

  /** A web decision: the key's free allowance, then the pass's credits; a `web` sample in the metrics. */
  decide(request: WebDecisionRequest, caller: Caller, ip: string, startedAt: number, requestId?: string): Promise<DecideAnswer> {
    const { keyId: _paidBy, ...decision } = request;
    return this.service.decide(decision as DecisionRequest, { caller, channel: 'web', ip, startedAt, requestId });
  }
}
