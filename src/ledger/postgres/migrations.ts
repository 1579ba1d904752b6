import type pg from 'pg';
import { transaction } from './database.js';

/**
 * The PostgreSQL schema, as an ordered list of steps; step i brings the database to
 * version i + 1, recorded as a row of `decide_schema_migrations`. Steps are
 * append-only, as SQLite's are. The tables and their invariants are SQLite's
 * (src/ledger/sqlite/migrations.ts), in PostgreSQL's types, plus what several
 * servers need:
 * - `charges.expires_at` (the database's clock): a reservation still `reserved`
 *   after it can only have been left by a server that died or stalled, and whichever
 *   server sees it first releases it (`expired` marks those releases);
 * - `idempotency.running_until`: likewise, how long a `running` record blocks its retries.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE passes (
    id          text PRIMARY KEY,
    created_at  timestamptz NOT NULL,
    credits     bigint NOT NULL DEFAULT 0 CHECK (credits >= 0),
    funded_ever boolean NOT NULL DEFAULT false
  );

  -- The entries that put credits on a pass; the balance moves only together with one.
  CREATE TABLE fundings (
    id         text PRIMARY KEY,
    pass_id    text NOT NULL REFERENCES passes (id),
    credits    bigint NOT NULL CHECK (credits > 0),
    note       text,
    created_at timestamptz NOT NULL
  );
  CREATE INDEX fundings_pass ON fundings (pass_id);

  CREATE TABLE keys (
    id          text PRIMARY KEY,
    pass_id     text NOT NULL REFERENCES passes (id),
    fingerprint bytea NOT NULL UNIQUE CHECK (octet_length(fingerprint) = 32),
    hint        text NOT NULL,
    created_at  timestamptz NOT NULL,
    revoked_at  timestamptz
  );
  CREATE INDEX keys_pass ON keys (pass_id);

  -- Daily counters of free decisions: per key, per client IP (SHA-256 of it), per site.
  -- Each equals the number of free charges of that day that are reserved or committed.
  CREATE TABLE free_usage (
    key_id text NOT NULL REFERENCES keys (id),
    day    date NOT NULL,
    used   integer NOT NULL CHECK (used >= 0),
    PRIMARY KEY (key_id, day)
  );

  CREATE TABLE ip_usage (
    ip_fingerprint bytea NOT NULL CHECK (octet_length(ip_fingerprint) = 32),
    day            date NOT NULL,
    used           integer NOT NULL CHECK (used >= 0),
    PRIMARY KEY (ip_fingerprint, day)
  );

  CREATE TABLE site_usage (
    day  date PRIMARY KEY,
    used integer NOT NULL CHECK (used >= 0)
  );

  CREATE TABLE charges (
    id             text PRIMARY KEY,
    key_id         text NOT NULL REFERENCES keys (id),
    pass_id        text NOT NULL REFERENCES passes (id),
    kind           text NOT NULL CHECK (kind IN ('free', 'credits')),
    cost           integer NOT NULL CHECK (cost > 0),
    state          text NOT NULL CHECK (state IN ('reserved', 'committed', 'released')),
    day            date NOT NULL,
    -- Only free charges need it (to give the IP counter back on release).
    ip_fingerprint bytea CHECK (ip_fingerprint IS NULL OR octet_length(ip_fingerprint) = 32),
    created_at     timestamptz NOT NULL,
    settled_at     timestamptz,
    -- The database's clock at reserve + the decision deadline + a margin.
    expires_at     timestamptz NOT NULL,
    -- Released by expiry (by any server) rather than by the server that took it.
    expired        boolean NOT NULL DEFAULT false,
    CHECK (kind = 'credits' OR (cost = 1 AND ip_fingerprint IS NOT NULL)),
    CHECK ((state = 'reserved') = (settled_at IS NULL)),
    CHECK (NOT expired OR state = 'released')
  );
  CREATE INDEX charges_pass ON charges (pass_id, state);
  -- The sweep looks for the few expired reservations among many settled charges.
  CREATE INDEX charges_expiry ON charges (expires_at) WHERE state = 'reserved';

  CREATE TABLE idempotency (
    key_id        text NOT NULL REFERENCES keys (id),
    idem_key      text NOT NULL,
    request_hash  text NOT NULL,
    state         text NOT NULL CHECK (state IN ('running', 'done')),
    status        integer,
    body          text,
    created_at    timestamptz NOT NULL,
    -- A running record past this (database clock) was left by a server that died.
    running_until timestamptz NOT NULL,
    CHECK ((state = 'done') = (status IS NOT NULL AND body IS NOT NULL)),
    PRIMARY KEY (key_id, idem_key)
  );
  -- Expired records are swept by age.
  CREATE INDEX idempotency_created ON idempotency (created_at);

  CREATE TABLE metrics (
    day      date NOT NULL,
    channel  text NOT NULL CHECK (channel IN ('api', 'web')),
    samples  bigint NOT NULL CHECK (samples >= 0),
    total_ms bigint NOT NULL CHECK (total_ms >= 0),
    PRIMARY KEY (day, channel)
  );
  `,
  // 2: the browser's side, as SQLite's step 2.
  `
  CREATE TABLE settings (
    name       text PRIMARY KEY,
    value      text NOT NULL,
    created_at timestamptz NOT NULL
  );

  CREATE TABLE key_creations (
    ip_fingerprint bytea NOT NULL CHECK (octet_length(ip_fingerprint) = 32),
    day            date NOT NULL,
    created        integer NOT NULL CHECK (created >= 0),
    PRIMARY KEY (ip_fingerprint, day)
  );
  `,
  // 3: the count of decisions served without a charge, as SQLite's step 3.
  `
  ALTER TABLE metrics ADD COLUMN uncharged bigint NOT NULL DEFAULT 0 CHECK (uncharged >= 0);
  `,
  // 4: temperatures fitted by \`decide calibrate\`, as SQLite's step 4.
  `
  CREATE TABLE calibrations (
    engine      text NOT NULL,
    model       text NOT NULL,
    target      text NOT NULL CHECK (target IN ('choice', 'noul', 'score', 'sufficiency')),
    temperature double precision NOT NULL CHECK (temperature > 0),
    fitted      integer NOT NULL CHECK (fitted >= 0),
    held_out    integer NOT NULL CHECK (held_out >= 0),
    ece_before  double precision NOT NULL,
    ece_after   double precision NOT NULL,
    fitted_at   timestamptz NOT NULL,
    PRIMARY KEY (engine, model, target)
  );
  `,
  // 5: passes created from a page, counted per client IP and day, as SQLite's step 5.
  `
  CREATE TABLE pass_creations (
    ip_fingerprint bytea NOT NULL CHECK (octet_length(ip_fingerprint) = 32),
    day            date NOT NULL,
    created        integer NOT NULL CHECK (created >= 0),
    PRIMARY KEY (ip_fingerprint, day)
  );
  `,
  // 6: several standard decisions paid together, as SQLite's step 6.
  `
  ALTER TABLE charges ADD COLUMN group_id text;
  CREATE INDEX charges_group ON charges (group_id) WHERE group_id IS NOT NULL;
  `,
];

/** The table recording which steps a database has had. */
export const VERSION_TABLE = 'decide_schema_migrations';

/**
 * Brings the database up to the latest step. Each step runs in its own transaction
 * that first takes a transaction-scoped advisory lock (one per schema) and re-reads
 * the version under it, so several servers starting at once on a new database apply
 * each step exactly once while the others wait, then find nothing left to do. DDL is
 * transactional in PostgreSQL: a failing step leaves nothing behind.
 *
 * `schema` (from `?schema=`) is created if missing; without it the tables go into
 * the first schema of the server's search_path. Returns the versions before and after.
 */
export async function migrate(
  pool: pg.Pool,
  schema: string | null,
  steps: readonly string[] = MIGRATIONS,
): Promise<{ from: number; to: number }> {
  let from: number | undefined;
  for (;;) {
    const to = await transaction(pool, async (client) => {
      const target = schema ?? (await currentSchema(client));
      await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('decide schema ' || $1, 0))`, [target]);
      if (schema !== null) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${VERSION_TABLE} (
           version    integer PRIMARY KEY CHECK (version > 0),
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const { rows } = await client.query<{ v: number }>(`SELECT coalesce(max(version), 0)::int AS v FROM ${VERSION_TABLE}`);
      const version = rows[0].v;
      from ??= version;
      if (version > steps.length) {
        throw new Error(
          `The database is at schema version ${version}, newer than this program knows (${steps.length}); upgrade decide.`,
        );
      }
      if (version === steps.length) return version;
      await client.query(steps[version]);
      await client.query(`INSERT INTO ${VERSION_TABLE} (version) VALUES ($1)`, [version + 1]);
      return null; // one more round: the next step, or the check that there is none
    });
    if (to !== null) return { from: from ?? to, to };
  }
}

async function currentSchema(client: pg.PoolClient): Promise<string> {
  const { rows } = await client.query<{ s: string | null }>('SELECT current_schema() AS s');
  if (!rows[0].s) {
    throw new Error('no schema of the search_path exists; create it, or name one with ?schema= in the URL');
  }
  return rows[0].s;
}
