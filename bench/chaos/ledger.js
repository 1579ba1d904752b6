// The chaos run's view of the ledger: the keys and passes it starts with (made through
// the store of dist/ and, for one pass, the operator commands), and the books it reads
// afterwards straight from the database, as an auditor would (SQLite file or
// PostgreSQL schema), in SQL both read alike.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';

const run = promisify(execFile);

export function isPostgres(location) {
  return /^postgres(ql)?:\/\//i.test(location);
}

/**
 * Makes `passes` passes of `keysPerPass` keys each; pass i is funded with
 * `funding(i)` credits (0: never funded). Pass 0 is made, keyed and funded with the
 * operator commands (`decide pass create`, `decide key create --pass`, `decide pass fund`),
 * the rest through the store itself. Returns every key with its pass.
 */
export async function seedLedger({ root, decide, location, env, passes, keysPerPass, funding }) {
  const cli = async (...args) => {
    const { stdout } = await run(process.execPath, [decide, ...args, '--db', location, '--json'], { cwd: root, env, timeout: 30_000 });
    return JSON.parse(stdout);
  };
  const { openStore } = await import(new URL('../../dist/ledger/open.js', import.meta.url).href);
  const store = await openStore(location, { freePerKey: 20, freePerIp: 0, freePerSite: 0 }, { sweepIntervalMs: 0 });
  const keys = [];
  const passList = [];
  try {
    for (let p = 0; p < passes; p++) {
      const credits = funding(p);
      let passId;
      if (p === 0) {
        passId = (await cli('pass', 'create')).passId;
        for (let k = 0; k < keysPerPass; k++) {
          const created = await (k === 0 ? cli('key', 'create', '--pass', passId) : store.keys.create(new Date(), passId));
          keys.push({ key: created.key, passId, keyHint: created.keyHint });
        }
        if (credits > 0) {
          const funded = await cli('pass', 'fund', '--pass', passId, '--credits', String(credits));
          if (funded.passCredits !== credits) throw new Error(`decide pass fund: expected ${credits} credits, got ${funded.passCredits}`);
        }
      } else {
        passId = (await store.passes.create(new Date())).passId;
        for (let k = 0; k < keysPerPass; k++) {
          const created = await store.keys.create(new Date(), passId);
          keys.push({ key: created.key, passId, keyHint: created.keyHint });
        }
        if (credits > 0) await store.passes.fund(passId, credits, new Date(), 'chaos');
      }
      passList.push({ passId, funded: credits });
    }
  } finally {
    await store.close();
  }
  return { keys, passes: passList };
}

const ACTIVE_FREE = `kind = 'free' AND state IN ('reserved', 'committed')`;
const QUERIES = {
  passes: `SELECT p.id AS id, CAST(p.credits AS INTEGER) AS credits,
             (SELECT CAST(coalesce(sum(f.credits), 0) AS INTEGER) FROM fundings f WHERE f.pass_id = p.id) AS funded,
             (SELECT CAST(coalesce(sum(c.cost), 0) AS INTEGER) FROM charges c
                WHERE c.pass_id = p.id AND c.kind = 'credits' AND c.state IN ('reserved', 'committed')) AS spent
           FROM passes p`,
  keyCounters: `SELECT key_id AS k, CAST(day AS TEXT) AS day, CAST(used AS INTEGER) AS n FROM free_usage`,
  keyCharges: `SELECT key_id AS k, CAST(day AS TEXT) AS day, CAST(count(*) AS INTEGER) AS n FROM charges WHERE ${ACTIVE_FREE}
               GROUP BY key_id, day`,
  ipCounters: `SELECT ip_fingerprint AS k, CAST(day AS TEXT) AS day, CAST(used AS INTEGER) AS n FROM ip_usage`,
  ipCharges: `SELECT ip_fingerprint AS k, CAST(day AS TEXT) AS day, CAST(count(*) AS INTEGER) AS n FROM charges WHERE ${ACTIVE_FREE}
              GROUP BY ip_fingerprint, day`,
  siteCounters: `SELECT '' AS k, CAST(day AS TEXT) AS day, CAST(used AS INTEGER) AS n FROM site_usage`,
  siteCharges: `SELECT '' AS k, CAST(day AS TEXT) AS day, CAST(count(*) AS INTEGER) AS n FROM charges WHERE ${ACTIVE_FREE} GROUP BY day`,
  states: `SELECT state, CAST(count(*) AS INTEGER) AS n FROM charges GROUP BY state`,
  keyPrints: `SELECT id, fingerprint FROM keys`,
  charges: `SELECT id, key_id, pass_id, kind, CAST(cost AS INTEGER) AS cost, state FROM charges`,
  metrics: `SELECT CAST(day AS TEXT) AS day, channel, CAST(sum(samples) AS INTEGER) AS samples FROM metrics GROUP BY day, channel`,
  running: `SELECT CAST(count(*) AS INTEGER) AS n FROM idempotency WHERE state = 'running'`,
};

/** A reader of the ledger at `location`, for the checks after the run. */
export function ledgerReader(location) {
  if (isPostgres(location)) {
    const url = new URL(location);
    const schema = url.searchParams.get('schema');
    url.searchParams.delete('schema');
    url.searchParams.set('application_name', 'decide_chaos_auditor');
    const pool = new pg.Pool({ connectionString: url.toString(), max: 2, options: schema ? `-c search_path=${schema}` : undefined });
    pool.on('error', () => {});
    return {
      all: async (sql) => (await pool.query(sql)).rows,
      close: () => pool.end(),
    };
  }
  return {
    all: async (sql) => {
      const db = new Database(location, { readonly: true });
      try {
        return db.prepare(sql).all();
      } finally {
        db.close();
      }
    },
    close: async () => {},
  };
}

/** Charges still reserved (a decision in flight, or one a dead server left). */
export async function reservedCount(reader) {
  const rows = await reader.all(QUERIES.states);
  return rows.find((r) => r.state === 'reserved')?.n ?? 0;
}

/**
 * The books as they stand: balances and free counters per key and pass, charge states,
 * metrics, and the audit (per pass: funded − credits charged = balance; every free
 * counter = its free charges that are reserved or committed).
 */
export async function readBooks(reader) {
  const rows = {};
  for (const [name, sql] of Object.entries(QUERIES)) rows[name] = await reader.all(sql);
  const problems = [];
  for (const p of rows.passes) {
    if (p.funded - p.spent !== p.credits) problems.push(`pass ${p.id}: funded ${p.funded} − spent ${p.spent} ≠ balance ${p.credits}`);
  }
  const label = (k, day) => `${Buffer.isBuffer(k) ? k.toString('hex') : String(k)}/${day}`;
  const compare = (what, counters, charges) => {
    const a = new Map(counters.map((r) => [label(r.k, r.day), r.n]));
    const b = new Map(charges.map((r) => [label(r.k, r.day), r.n]));
    for (const k of new Set([...a.keys(), ...b.keys()])) {
      if ((a.get(k) ?? 0) !== (b.get(k) ?? 0))
        problems.push(`${what} ${k}: counter ${a.get(k) ?? 0} ≠ active free charges ${b.get(k) ?? 0}`);
    }
  };
  compare('key/day', rows.keyCounters, rows.keyCharges);
  compare('ip/day', rows.ipCounters, rows.ipCharges);
  compare('site/day', rows.siteCounters, rows.siteCharges);
  const prints = new Map(rows.keyPrints.map((r) => [r.id, Buffer.from(r.fingerprint).toString('hex')]));
  return {
    problems,
    states: Object.fromEntries(rows.states.map((r) => [r.state, r.n])),
    /** pass id → { credits, funded } */
    passes: new Map(rows.passes.map((p) => [p.id, { credits: p.credits, funded: p.funded }])),
    /** `<SHA-256 of the key, hex>/day` → free units in use */
    freeByKey: new Map(rows.keyCounters.map((r) => [`${prints.get(r.k)}/${r.day}`, r.n])),
    /** charge id → { key (SHA-256 hex), passId, kind, cost, state } */
    charges: new Map(
      rows.charges.map((c) => [c.id, { key: prints.get(c.key_id), passId: c.pass_id, kind: c.kind, cost: c.cost, state: c.state }]),
    ),
    siteUsed: new Map(rows.siteCounters.map((r) => [r.day, r.n])),
    metrics: rows.metrics,
    running: rows.running[0]?.n ?? 0,
  };
}

/** A PostgreSQL connection of its own that drops every connection of the servers under test. */
export async function backendKiller(location) {
  const url = new URL(location);
  const appName = url.searchParams.get('application_name');
  if (!appName) throw new Error('the chaos URL must name an application_name to aim pg_terminate_backend at');
  url.searchParams.delete('schema');
  url.searchParams.set('application_name', 'decide_chaos_killer');
  const client = new pg.Client({ connectionString: url.toString() });
  client.on('error', () => {});
  await client.connect();
  return {
    /** Terminates every backend of the servers; returns how many. */
    async terminate() {
      const { rows } = await client.query(
        `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS n
           FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`,
        [appName],
      );
      return rows[0].n;
    },
    /** Backends the servers hold right now. */
    async count() {
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`, [appName]);
      return rows[0].n;
    },
    close: () => client.end().catch(() => {}),
  };
}

/** Creates nothing: drops the run's schema (PostgreSQL) when done. */
export async function dropSchema(location) {
  const url = new URL(location);
  const schema = url.searchParams.get('schema');
  if (!schema || !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) return;
  url.searchParams.delete('schema');
  url.searchParams.set('application_name', 'decide_chaos_cleanup');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
