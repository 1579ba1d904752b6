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
  // 7: a reserve in one round trip, and charges_pass gone (no query reads charges by
  // pass; it was written at every reserve and commit, as it indexed the state).
  // reserve_charge is what PgCharges.reserve did in five to nine statements for one
  // unit: lock the pass row, take a free unit (key, IP, site counters, each behind its
  // guard) or credits, insert the charge; or name the refusal. Its outcome: 'free'
  // (remaining = the key's free units left), 'pass' (remaining = the pass's credits
  // left), or a refusal code. Its charge has no group_id (step 6): a reserve of several
  // units (a group) still takes the statement path, under the same pass-row lock and
  // in the same lock order, so the two never disagree about a balance or a counter.
  // search_path is fixed at creation: the tables of this schema.
  `
  DROP INDEX charges_pass;

  CREATE FUNCTION reserve_charge(
    p_id text, p_key text, p_pass text, p_stress boolean, p_cost integer, p_ip bytea, p_day date,
    p_created timestamptz, p_ttl_ms double precision, p_free_per_key integer, p_free_per_ip integer, p_free_per_site integer
  ) RETURNS TABLE (outcome text, remaining bigint)
  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
  DECLARE
    v_credits bigint;
    v_funded boolean;
    v_used integer;
    v_left bigint;
  BEGIN
    -- NO KEY UPDATE: orders every reserve of one pass (and so of its keys) without
    -- blocking inserts elsewhere that merely reference the pass.
    SELECT credits, funded_ever INTO v_credits, v_funded FROM passes WHERE id = p_pass FOR NO KEY UPDATE;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'Pass % of key % does not exist.', p_pass, p_key;
    END IF;
    IF p_stress THEN
      IF v_credits < p_cost THEN
        RETURN QUERY SELECT CASE WHEN v_credits = 0 THEN 'pass_required' ELSE 'insufficient_credits' END, NULL::bigint;
        RETURN;
      END IF;
    ELSE
      IF p_free_per_key > 0 THEN
        INSERT INTO free_usage AS f (key_id, day, used) VALUES (p_key, p_day, 1)
          ON CONFLICT (key_id, day) DO UPDATE SET used = f.used + 1 WHERE f.used < p_free_per_key
          RETURNING f.used INTO v_used;
      END IF;
      IF v_used IS NOT NULL THEN
        -- The key has a free unit left; the site's limits, shared by every pass, decide by their guards.
        INSERT INTO ip_usage AS u (ip_fingerprint, day, used) VALUES (p_ip, p_day, 1)
          ON CONFLICT (ip_fingerprint, day) DO UPDATE SET used = u.used + 1 WHERE p_free_per_ip = 0 OR u.used < p_free_per_ip;
        IF FOUND THEN
          INSERT INTO site_usage AS s (day, used) VALUES (p_day, 1)
            ON CONFLICT (day) DO UPDATE SET used = s.used + 1 WHERE p_free_per_site = 0 OR s.used < p_free_per_site;
          IF FOUND THEN
            INSERT INTO charges (id, key_id, pass_id, kind, cost, state, day, ip_fingerprint, created_at, expires_at)
              VALUES (p_id, p_key, p_pass, 'free', 1, 'reserved', p_day, p_ip, p_created,
                      clock_timestamp() + p_ttl_ms * interval '1 millisecond');
            RETURN QUERY SELECT 'free', (p_free_per_key - v_used)::bigint;
            RETURN;
          END IF;
          UPDATE ip_usage SET used = used - 1 WHERE ip_fingerprint = p_ip AND day = p_day AND used > 0;
        END IF;
        UPDATE free_usage SET used = used - 1 WHERE key_id = p_key AND day = p_day AND used > 0;
        -- The site's free limits hold back free decisions only; a pass pays its way past them.
        IF v_credits < p_cost THEN
          RETURN QUERY SELECT 'rate_limited', NULL::bigint;
          RETURN;
        END IF;
      ELSIF v_credits < p_cost THEN
        RETURN QUERY SELECT CASE WHEN v_funded THEN 'insufficient_credits' ELSE 'free_limit_reached' END, NULL::bigint;
        RETURN;
      END IF;
    END IF;
    UPDATE passes SET credits = credits - p_cost WHERE id = p_pass AND credits >= p_cost RETURNING credits INTO v_left;
    IF NOT FOUND THEN
      RAISE EXCEPTION 'Ledger guard failed on pass credits; the transaction was rolled back.';
    END IF;
    INSERT INTO charges (id, key_id, pass_id, kind, cost, state, day, ip_fingerprint, created_at, expires_at)
      VALUES (p_id, p_key, p_pass, 'credits', p_cost, 'reserved', p_day, NULL, p_created,
              clock_timestamp() + p_ttl_ms * interval '1 millisecond');
    RETURN QUERY SELECT 'pass', v_left;
  END;
  $$;
  `,
  // 8: a day's metrics in several rows per channel (charge-sql.ts, METRICS_SHARD), so
  // concurrent commits stop queuing on the lock of one row held until their COMMIT.
  `
  ALTER TABLE metrics ADD COLUMN shard smallint NOT NULL DEFAULT 0;
  ALTER TABLE metrics DROP CONSTRAINT metrics_pkey;
  ALTER TABLE metrics ADD PRIMARY KEY (day, channel, shard);
  `,
  // 9: a reserve checks that the caller's key is still active. A server keeps the keys
  // it looked up for a while (keys.ts), so a key revoked through another server reaches
  // the reserve; it is refused there ('key_revoked') and nothing is taken. Step 7's
  // function does the taking, under the name take_charge.
  `
  ALTER FUNCTION reserve_charge(text, text, text, boolean, integer, bytea, date, timestamptz, double precision, integer, integer, integer)
    RENAME TO take_charge;

  CREATE FUNCTION reserve_charge(
    p_id text, p_key text, p_pass text, p_stress boolean, p_cost integer, p_ip bytea, p_day date,
    p_created timestamptz, p_ttl_ms double precision, p_free_per_key integer, p_free_per_ip integer, p_free_per_site integer
  ) RETURNS TABLE (outcome text, remaining bigint)
  LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
  BEGIN
    PERFORM FROM keys WHERE id = p_key AND revoked_at IS NULL;
    IF NOT FOUND THEN
      RETURN QUERY SELECT 'key_revoked'::text, NULL::bigint;
      RETURN;
    END IF;
    RETURN QUERY SELECT * FROM take_charge(p_id, p_key, p_pass, p_stress, p_cost, p_ip, p_day, p_created, p_ttl_ms,
                                           p_free_per_key, p_free_per_ip, p_free_per_site);
  END;
  $$;
  `,
  // 10: a temperature is fitted for one order debiasing too, as SQLite's step 9.
  `
  ALTER TABLE calibrations ADD COLUMN debias text NOT NULL DEFAULT 'none' CHECK (debias IN ('none', 'reverse', 'cyclic'));
  UPDATE calibrations SET debias = 'reverse' WHERE engine = 'local';
  ALTER TABLE calibrations ALTER COLUMN debias DROP DEFAULT;
  ALTER TABLE calibrations DROP CONSTRAINT calibrations_pkey;
  ALTER TABLE calibrations ADD PRIMARY KEY (engine, model, debias, target);
  `,
  // 11: what the operator needs to manage keys: a name given at creation, and when the
  // key was last used (written in batches off the request path, ledger/last-use.ts).
  `
  ALTER TABLE keys ADD COLUMN name text, ADD COLUMN last_used_at timestamptz;
  `,
  // 12: a calibration is a temperature and offsets, as SQLite's step 11.
  `
  ALTER TABLE calibrations ADD COLUMN offsets text;
  `,
  // 13: the optional decision log, as SQLite's step 12.
  `
  CREATE TABLE decisions (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pass_id    text NOT NULL,
    key_id     text NOT NULL,
    decided_at timestamptz NOT NULL,
    door       text NOT NULL CHECK (door IN ('api', 'mcp', 'web')),
    mode       text NOT NULL CHECK (mode IN ('choice', 'noul', 'score')),
    depth      text NOT NULL CHECK (depth IN ('standard', 'stress')),
    credits    integer NOT NULL CHECK (credits >= 0),
    signal     text NOT NULL,
    top        text NOT NULL,
    confidence double precision NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    question   text,
    context    text,
    choices    text,
    answer     text
  );
  CREATE INDEX decisions_pass ON decisions (pass_id, decided_at);
  CREATE INDEX decisions_age ON decisions (decided_at);
  `,
  // 14: what `decide eval` measured of an engine, model and order debiasing, as SQLite's step 13.
  `
  CREATE TABLE evaluations (
    engine        text NOT NULL,
    model         text NOT NULL,
    debias        text NOT NULL CHECK (debias IN ('none', 'reverse', 'cyclic')),
    set_file      text NOT NULL,
    half          text CHECK (half IN ('even', 'odd')),
    items         integer NOT NULL CHECK (items >= 0),
    measured      integer NOT NULL CHECK (measured BETWEEN 0 AND items),
    calibrated    boolean NOT NULL,
    accuracy      double precision,
    accuracy_low  double precision,
    accuracy_high double precision,
    log_loss      double precision,
    log_loss_low  double precision,
    log_loss_high double precision,
    ece           double precision,
    ece_low       double precision,
    ece_high      double precision,
    evaluated_at  timestamptz NOT NULL,
    PRIMARY KEY (engine, model, debias)
  );
  `,
  // 15: the decision log keeps the same two numbers in every mode, as SQLite's step 14.
  `
  ALTER TABLE decisions ADD COLUMN top_probability double precision CHECK (top_probability BETWEEN 0 AND 1);
  UPDATE decisions
     SET top_probability = confidence,
         confidence = round(greatest(0, least(1,
           ((CASE mode WHEN 'noul' THEN 2 ELSE 3 END) * confidence - 1) / (CASE mode WHEN 'noul' THEN 1 ELSE 2 END)))::numeric, 4)::double precision
   WHERE mode IN ('noul', 'score');
  UPDATE decisions
     SET top_probability = round(least(1, confidence + (1 - confidence) / json_array_length(choices::json))::numeric, 4)::double precision
   WHERE mode = 'choice' AND choices IS NOT NULL;
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
        throw new Error(`The database is at schema version ${version}, newer than this program knows (${steps.length}); upgrade decide.`);
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
