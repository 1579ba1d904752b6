import type { Database } from 'better-sqlite3';

/**
 * The schema, as an ordered list of steps. Step i brings the file to
 * `PRAGMA user_version = i + 1`. Steps are append-only: a released step is never
 * edited, a change is a new step, so every file out there can be brought forward.
 *
 * Invariants the schema itself enforces (the store relies on them, tests check them):
 * - a balance never goes negative (`CHECK (credits >= 0)`), so a guard that slipped
 *   would fail the transaction rather than overspend;
 * - a charge is `reserved` exactly while it has no `settled_at`;
 * - a free charge costs one unit; credits charges carry their cost in credits;
 * - keys are stored as a 32-byte SHA-256 fingerprint and a display hint, never the key.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE passes (
    id          TEXT PRIMARY KEY,
    created_at  TEXT NOT NULL,
    credits     INTEGER NOT NULL DEFAULT 0 CHECK (credits >= 0),
    funded_ever INTEGER NOT NULL DEFAULT 0 CHECK (funded_ever IN (0, 1))
  ) STRICT;

  -- The entries that put credits on a pass; the balance moves only together with one.
  CREATE TABLE fundings (
    id         TEXT PRIMARY KEY,
    pass_id    TEXT NOT NULL REFERENCES passes (id),
    credits    INTEGER NOT NULL CHECK (credits > 0),
    note       TEXT,
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE INDEX fundings_pass ON fundings (pass_id);

  CREATE TABLE keys (
    id          TEXT PRIMARY KEY,
    pass_id     TEXT NOT NULL REFERENCES passes (id),
    fingerprint BLOB NOT NULL UNIQUE CHECK (length(fingerprint) = 32),
    hint        TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    revoked_at  TEXT
  ) STRICT;
  CREATE INDEX keys_pass ON keys (pass_id);

  -- Daily counters of free decisions: per key, per client IP (SHA-256 of it), per site.
  -- Each equals the number of free charges of that day that are reserved or committed.
  CREATE TABLE free_usage (
    key_id TEXT NOT NULL REFERENCES keys (id),
    day    TEXT NOT NULL,
    used   INTEGER NOT NULL CHECK (used >= 0),
    PRIMARY KEY (key_id, day)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE ip_usage (
    ip_fingerprint BLOB NOT NULL CHECK (length(ip_fingerprint) = 32),
    day            TEXT NOT NULL,
    used           INTEGER NOT NULL CHECK (used >= 0),
    PRIMARY KEY (ip_fingerprint, day)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE site_usage (
    day  TEXT PRIMARY KEY,
    used INTEGER NOT NULL CHECK (used >= 0)
  ) STRICT, WITHOUT ROWID;

  CREATE TABLE charges (
    id             TEXT PRIMARY KEY,
    key_id         TEXT NOT NULL REFERENCES keys (id),
    pass_id        TEXT NOT NULL REFERENCES passes (id),
    kind           TEXT NOT NULL CHECK (kind IN ('free', 'credits')),
    cost           INTEGER NOT NULL CHECK (cost > 0),
    state          TEXT NOT NULL CHECK (state IN ('reserved', 'committed', 'released')),
    day            TEXT NOT NULL,
    -- Only free charges need it (to give the IP counter back on release).
    ip_fingerprint BLOB CHECK (ip_fingerprint IS NULL OR length(ip_fingerprint) = 32),
    created_at     TEXT NOT NULL,
    settled_at     TEXT,
    CHECK (kind = 'credits' OR (cost = 1 AND ip_fingerprint IS NOT NULL)),
    CHECK ((state = 'reserved') = (settled_at IS NULL))
  ) STRICT;
  CREATE INDEX charges_pass ON charges (pass_id, state);
  -- Start-up recovery looks for the few reserved rows among many settled ones.
  CREATE INDEX charges_reserved ON charges (state) WHERE state = 'reserved';

  CREATE TABLE idempotency (
    key_id       TEXT NOT NULL REFERENCES keys (id),
    idem_key     TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('running', 'done')),
    status       INTEGER,
    body         TEXT,
    created_at   TEXT NOT NULL,
    CHECK ((state = 'done') = (status IS NOT NULL AND body IS NOT NULL)),
    PRIMARY KEY (key_id, idem_key)
  ) STRICT;
  -- Expired records are swept by age.
  CREATE INDEX idempotency_created ON idempotency (created_at);

  CREATE TABLE metrics (
    day      TEXT NOT NULL,
    channel  TEXT NOT NULL CHECK (channel IN ('api', 'web')),
    samples  INTEGER NOT NULL CHECK (samples >= 0),
    total_ms INTEGER NOT NULL CHECK (total_ms >= 0),
    PRIMARY KEY (day, channel)
  ) STRICT, WITHOUT ROWID;
  `,
  // 2: the browser's side. Server settings (the pass cookie's secret when the operator
  // gives none) and the daily count of keys created per client IP (SHA-256 of it).
  `
  CREATE TABLE settings (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT;

  CREATE TABLE key_creations (
    ip_fingerprint BLOB NOT NULL CHECK (length(ip_fingerprint) = 32),
    day            TEXT NOT NULL,
    created        INTEGER NOT NULL CHECK (created >= 0),
    PRIMARY KEY (ip_fingerprint, day)
  ) STRICT, WITHOUT ROWID;
  `,
  // 3: a reservation expires, so a release that could not be written (the file locked
  // by another process) is swept later rather than held until the next start; rows
  // reserved before this step have none and are released at the start as before.
  // The sweep's index replaces the start-up one, which only the sweep's query needs.
  // The count of decisions served without a charge. And the lease: which live
  // `decide serve` holds the file.
  `
  ALTER TABLE charges ADD COLUMN expires_at TEXT;
  DROP INDEX charges_reserved;
  CREATE INDEX charges_expiry ON charges (expires_at) WHERE state = 'reserved';

  ALTER TABLE metrics ADD COLUMN uncharged INTEGER NOT NULL DEFAULT 0 CHECK (uncharged >= 0);

  CREATE TABLE server_lease (
    id           INTEGER PRIMARY KEY CHECK (id = 1),
    pid          INTEGER NOT NULL,
    host         TEXT NOT NULL,
    started_at   TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL
  ) STRICT;
  `,
  // 4: temperatures fitted by `decide calibrate`, per engine, model and target.
  `
  CREATE TABLE calibrations (
    engine      TEXT NOT NULL,
    model       TEXT NOT NULL,
    target      TEXT NOT NULL CHECK (target IN ('choice', 'noul', 'score', 'sufficiency')),
    temperature REAL NOT NULL CHECK (temperature > 0),
    fitted      INTEGER NOT NULL CHECK (fitted >= 0),
    held_out    INTEGER NOT NULL CHECK (held_out >= 0),
    ece_before  REAL NOT NULL,
    ece_after   REAL NOT NULL,
    fitted_at   TEXT NOT NULL,
    PRIMARY KEY (engine, model, target)
  ) STRICT;
  `,
  // 5: passes created from a page, counted per client IP and day as keys are.
  `
  CREATE TABLE pass_creations (
    ip_fingerprint BLOB NOT NULL CHECK (length(ip_fingerprint) = 32),
    day            TEXT NOT NULL,
    created        INTEGER NOT NULL CHECK (created >= 0),
    PRIMARY KEY (ip_fingerprint, day)
  ) STRICT, WITHOUT ROWID;
  `,
  // 6: several standard decisions paid together (the questions of one System One
  // request): one charge row per unit, as for a decision, named together by group_id,
  // so they are committed or released together.
  `
  ALTER TABLE charges ADD COLUMN group_id TEXT;
  CREATE INDEX charges_group ON charges (group_id) WHERE group_id IS NOT NULL;
  `,
  // 7: a decision's writes, fewer pages each (every page a transaction changes is
  // written whole to the WAL). No query reads charges by pass, so charges_pass went: it
  // cost a page at reserve and one or two at commit (it indexed the state). And the
  // table is keyed by its id alone (WITHOUT ROWID): a rowid table kept a second b-tree
  // for the id. Ids of new charges begin with the time, so they are appended where the
  // last one went rather than on a random page. The sweep's partial index stays, and so
  // do step 6's group_id and its index (a group's units are settled together).
  `
  DROP INDEX charges_pass;
  DROP INDEX charges_expiry;
  DROP INDEX charges_group;
  CREATE TABLE charges_keyed (
    id             TEXT PRIMARY KEY,
    key_id         TEXT NOT NULL REFERENCES keys (id),
    pass_id        TEXT NOT NULL REFERENCES passes (id),
    kind           TEXT NOT NULL CHECK (kind IN ('free', 'credits')),
    cost           INTEGER NOT NULL CHECK (cost > 0),
    state          TEXT NOT NULL CHECK (state IN ('reserved', 'committed', 'released')),
    day            TEXT NOT NULL,
    ip_fingerprint BLOB CHECK (ip_fingerprint IS NULL OR length(ip_fingerprint) = 32),
    created_at     TEXT NOT NULL,
    settled_at     TEXT,
    expires_at     TEXT,
    group_id       TEXT,
    CHECK (kind = 'credits' OR (cost = 1 AND ip_fingerprint IS NOT NULL)),
    CHECK ((state = 'reserved') = (settled_at IS NULL))
  ) STRICT, WITHOUT ROWID;
  INSERT INTO charges_keyed (id, key_id, pass_id, kind, cost, state, day, ip_fingerprint, created_at, settled_at, expires_at, group_id)
    SELECT id, key_id, pass_id, kind, cost, state, day, ip_fingerprint, created_at, settled_at, expires_at, group_id FROM charges;
  DROP TABLE charges;
  ALTER TABLE charges_keyed RENAME TO charges;
  CREATE INDEX charges_expiry ON charges (expires_at) WHERE state = 'reserved';
  CREATE INDEX charges_group ON charges (group_id) WHERE group_id IS NOT NULL;
  `,
  // 8: the file's lease names its holder by a random id drawn at start: process number
  // and host name are the same for two containers on one volume (each is process 1).
  `
  ALTER TABLE server_lease ADD COLUMN holder TEXT NOT NULL DEFAULT '';
  `,
  // 9: a temperature is fitted for one order debiasing too: a fit made under one mode
  // was applied under another. Earlier fits were made under their engine's default mode
  // (\`decide calibrate\` without --debias): reverse for the local engine, none for others.
  `
  CREATE TABLE calibrations_keyed (
    engine      TEXT NOT NULL,
    model       TEXT NOT NULL,
    debias      TEXT NOT NULL CHECK (debias IN ('none', 'reverse', 'cyclic')),
    target      TEXT NOT NULL CHECK (target IN ('choice', 'noul', 'score', 'sufficiency')),
    temperature REAL NOT NULL CHECK (temperature > 0),
    fitted      INTEGER NOT NULL CHECK (fitted >= 0),
    held_out    INTEGER NOT NULL CHECK (held_out >= 0),
    ece_before  REAL NOT NULL,
    ece_after   REAL NOT NULL,
    fitted_at   TEXT NOT NULL,
    PRIMARY KEY (engine, model, debias, target)
  ) STRICT;
  INSERT INTO calibrations_keyed (engine, model, debias, target, temperature, fitted, held_out, ece_before, ece_after, fitted_at)
    SELECT engine, model, CASE engine WHEN 'local' THEN 'reverse' ELSE 'none' END, target, temperature, fitted, held_out,
           ece_before, ece_after, fitted_at FROM calibrations;
  DROP TABLE calibrations;
  ALTER TABLE calibrations_keyed RENAME TO calibrations;
  `,
  // 10: what the operator needs to manage keys: a name given at creation, and when the
  // key was last used (written in batches off the request path, ledger/last-use.ts).
  `
  ALTER TABLE keys ADD COLUMN name TEXT;
  ALTER TABLE keys ADD COLUMN last_used_at TEXT;
  `,
  // 11: a calibration is a temperature and offsets for places or for yes
  // (decision/scaling.ts), as JSON text; null is none.
  `
  ALTER TABLE calibrations ADD COLUMN offsets TEXT;
  `,
  // 12: the optional decision log (DECIDE_DECISION_LOG): one row per decision served,
  // written with its commit; the key by its id only. The text columns are filled at
  // level full alone. Swept by decided_at once past the retention.
  `
  CREATE TABLE decisions (
    id         INTEGER PRIMARY KEY,
    pass_id    TEXT NOT NULL,
    key_id     TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    door       TEXT NOT NULL CHECK (door IN ('api', 'mcp', 'web')),
    mode       TEXT NOT NULL CHECK (mode IN ('choice', 'noul', 'score')),
    depth      TEXT NOT NULL CHECK (depth IN ('standard', 'stress')),
    credits    INTEGER NOT NULL CHECK (credits >= 0),
    signal     TEXT NOT NULL,
    top        TEXT NOT NULL,
    confidence REAL NOT NULL CHECK (confidence BETWEEN 0 AND 1),
    question   TEXT,
    context    TEXT,
    choices    TEXT,
    answer     TEXT
  ) STRICT;
  CREATE INDEX decisions_pass ON decisions (pass_id, decided_at);
  CREATE INDEX decisions_age ON decisions (decided_at);
  `,
  // 13: what `decide eval` measured of an engine, model and order debiasing, summed up
  // (ledger/evaluations.ts): one row each, replaced by the next run, so `decide serve`
  // can say whether the model it answers with was measured. A figure's bounds are its
  // 95 % bootstrap interval; null where the report had none.
  `
  CREATE TABLE evaluations (
    engine        TEXT NOT NULL,
    model         TEXT NOT NULL,
    debias        TEXT NOT NULL CHECK (debias IN ('none', 'reverse', 'cyclic')),
    set_file      TEXT NOT NULL,
    half          TEXT CHECK (half IN ('even', 'odd')),
    items         INTEGER NOT NULL CHECK (items >= 0),
    measured      INTEGER NOT NULL CHECK (measured BETWEEN 0 AND items),
    calibrated    INTEGER NOT NULL CHECK (calibrated IN (0, 1)),
    accuracy      REAL,
    accuracy_low  REAL,
    accuracy_high REAL,
    log_loss      REAL,
    log_loss_low  REAL,
    log_loss_high REAL,
    ece           REAL,
    ece_low       REAL,
    ece_high      REAL,
    evaluated_at  TEXT NOT NULL,
    PRIMARY KEY (engine, model, debias)
  ) STRICT;
  `,
  // 14: the decision log keeps the same two numbers in every mode: `top_probability`,
  // the top answer's probability, and `confidence`, the result's confidence as the API
  // defines it, the margin (k·p − 1)/(k − 1) over an even split of k answers. Rows
  // before held the margin for a choice but the top probability for a noul (k = 2) or
  // a score (k = 3 levels); a choice's probability is found again where its options
  // were kept (level full), p = c + (1 − c)/k, and stays null where they were not.
  `
  ALTER TABLE decisions ADD COLUMN top_probability REAL CHECK (top_probability BETWEEN 0 AND 1);
  UPDATE decisions
     SET top_probability = confidence,
         confidence = round(max(0.0, min(1.0,
           ((CASE mode WHEN 'noul' THEN 2 ELSE 3 END) * confidence - 1) / (CASE mode WHEN 'noul' THEN 1 ELSE 2 END))), 4)
   WHERE mode IN ('noul', 'score');
  UPDATE decisions
     SET top_probability = round(min(1.0, confidence + (1 - confidence) / json_array_length(choices)), 4)
   WHERE mode = 'choice' AND choices IS NOT NULL;
  `,
];

/**
 * Brings the file up to the latest step. Each step runs in its own IMMEDIATE
 * transaction and re-reads the version inside it, so a server and an operator
 * command opening the same new file at once apply each step exactly once.
 * Returns the versions before and after.
 */
export function migrate(db: Database, steps: readonly string[] = MIGRATIONS): { from: number; to: number } {
  const version = () => db.pragma('user_version', { simple: true }) as number;
  const from = version();
  if (from > steps.length) {
    throw new Error(`The database is at schema version ${from}, newer than this program knows (${steps.length}); upgrade decide.`);
  }
  for (let target = from + 1; target <= steps.length; target++) {
    db.transaction(() => {
      if (version() >= target) return; // another process got here first
      db.exec(steps[target - 1]);
      db.pragma(`user_version = ${target}`);
    }).immediate();
  }
  return { from, to: version() };
}
