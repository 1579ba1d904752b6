import type { Charges, CommitOutcome, ReserveOutcome, ReserveRequest, Settlement } from '../charges.js';
import { checkSample } from '../rules.js';
import { ledgerUnavailable } from '../unavailable.js';
import type { SqliteDecisions } from './decisions.js';
import type { SqliteIdempotency } from './idempotency.js';
import type { SqliteMetrics } from './metrics.js';
import type { Reservations } from './reservations.js';
import type { Transactions } from './transactions.js';
import { utcDay } from '../../contract/utc-day.js';

/**
 * The money path on SQLite. Reserves and commits share the IMMEDIATE transaction of
 * their event loop turn (group-commit.ts), each in a savepoint of its own; the rows
 * they move are reservations.ts's.
 */
export class SqliteCharges implements Charges {
  constructor(
    private readonly tx: Transactions,
    private readonly reservations: Reservations,
    private readonly metrics: SqliteMetrics,
    private readonly idempotency: SqliteIdempotency,
    private readonly decisions: SqliteDecisions,
    /** Why this server may take no new work (its lease was taken), or null. */
    private readonly refusing: () => string | null = () => null,
  ) {}

  async reserve(request: ReserveRequest, now: Date): Promise<ReserveOutcome> {
    const refused = this.refusing();
    if (refused) throw ledgerUnavailable(refused);
    return this.tx.grouped(() => this.reservations.reserve(request, now));
  }

  async commit(reservationId: string, now: Date, settlement?: Settlement): Promise<CommitOutcome> {
    const day = settlement && utcDay(settlement.sample.reservedAt);
    if (settlement) checkSample(settlement.sample.channel, settlement.sample.ms);
    // What the log refused (decisions.ts), told only once the commit stands.
    let refused = null as { error: unknown } | null;
    // One savepoint of the turn's IMMEDIATE transaction: the charge, the sample, the
    // kept answer and the log entry, or none of them; but an entry the log refuses is
    // left out, in a savepoint of its own, and the rest committed.
    const outcome = await this.tx.grouped((): CommitOutcome => {
      refused = null;
      const { outcome, fresh } = this.reservations.settle(reservationId, now, settlement?.units);
      if (!settlement || !day || !fresh) return outcome;
      const { channel, ms } = settlement.sample;
      const body = settlement.answer(outcome, this.metrics.record(day, channel, ms, !outcome.charged));
      if (settlement.idempotency) this.idempotency.finish(settlement.idempotency.keyId, settlement.idempotency.idemKey, 200, body);
      const { logged } = settlement;
      if (logged) refused = this.decisions.record(() => logged(outcome), now);
      return outcome;
    });
    if (refused) settlement?.unlogged?.(refused.error);
    return outcome;
  }

  async release(reservationId: string, now: Date): Promise<void> {
    await this.tx.unlocked(() => this.reservations.release(reservationId, now));
  }
}
