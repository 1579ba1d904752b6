// The chaos run's table: one column per run (SQLite, PostgreSQL), the checks after it.

const int = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
const fixed = (x, digits = 0) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');

function table(header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? '').length)));
  const line = (cells) =>
    cells.map((c, i) => (i === 0 ? String(c ?? '').padEnd(widths[i]) : String(c ?? '').padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The rows of the table, one value per result. */
export function chaosTable(results) {
  const f = results.map((r) => r.figures);
  const cell = (fn) => f.map((x, i) => fn(x, results[i]));
  const status = (x, match) =>
    int(
      Object.entries(x.statuses)
        .filter(([label]) => match(label))
        .reduce((n, [, count]) => n + count, 0),
    );
  const share = (x, match) =>
    `${fixed(
      (100 *
        Object.entries(x.statuses)
          .filter(([label]) => match(label))
          .reduce((n, [, count]) => n + count, 0)) /
        x.decisions,
      1,
    )} %`;
  const rows = [
    ['decisions asked / clients', ...cell((x) => `${int(x.decisions)} / ${x.clients}`)],
    ['busy loops beside the run', ...cell((x) => String(x.busyLoops ?? 0))],
    ['keys / passes', ...cell((x) => `${x.keys} / ${x.passes}`)],
    ['load held (decisions/s)', ...cell((x) => fixed((x.served * 1000) / x.loadMs))],
    ['answers/s (any outcome)', ...cell((x) => fixed((x.decisions * 1000) / x.loadMs))],
    ['load phase (s) / whole run (s)', ...cell((x) => `${fixed(x.loadMs / 1000, 1)} / ${fixed(x.totalMs / 1000, 1)}`)],
    ['p99 per request, retries included (ms)', ...cell((x) => int(x.p99Ms))],
    ['served (200)', ...cell((x) => int(x.served))],
    ['  of which replayed after a lost answer', ...cell((x) => int(x.replayed))],
    ['  of which served without a charge', ...cell((x) => int(x.uncharged))],
    [
      'refused 402 / 429 (payment, limits)',
      ...cell((x) => `${status(x, (l) => l.startsWith('402'))} / ${status(x, (l) => /^429 (free_limit|rate_limited)/.test(l))}`),
    ],
    [
      'engine failures 429 / 502 / 503 / 504',
      ...cell((x) => ['429 engine_busy', '502', '503', '504'].map((p) => status(x, (l) => l.startsWith(p))).join(' / ')),
    ],
    [
      '  504 share of requests / 429 engine_busy share',
      ...cell((x) => ['504', '429 engine_busy'].map((p) => share(x, (l) => l.startsWith(p))).join(' / ')),
    ],
    ['other errors (409, 500, …)', ...cell((x) => status(x, (l) => l !== '200' && !/^(402|429|502|503|504)/.test(l)))],
    ['faults: engine 5xx / 429 / garbage', ...cell((x) => ['5xx', '429', 'garbage'].map((k) => int(x.engine.injected[k])).join(' / '))],
    ['faults: engine hangs / resets', ...cell((x) => ['hang', 'reset'].map((k) => int(x.engine.injected[k])).join(' / '))],
    ['faults: engine calls in all', ...cell((x) => int(x.engine.calls))],
    ['faults: servers kill -9ed and restarted', ...cell((x) => int(x.faults.kills))],
    [
      'faults: pg_terminate_backend rounds / connections',
      ...cell((x) => (x.db === 'PostgreSQL' ? `${x.faults.terminations} / ${x.faults.backendsDropped}` : '—')),
    ],
    ['connection errors, all while a server was down (retried)', ...cell((x) => int(x.inFlightOnKilled))],
    ['reservations released at restart', ...cell((x) => int(x.releasedAtStart))],
    ['internal errors logged (500)', ...cell((x) => int(x.internalErrors))],
    ['balances checked (keys, passes, site, metrics)', ...cell((x) => int(x.balancesChecked))],
    ['free decisions / credits charged', ...cell((x) => `${int(x.freeServed)} / ${int(x.creditsSpent)}`)],
    ['checks passed', ...cell((_x, r) => `${r.checks.filter((c) => c.ok).length} / ${r.checks.length}`)],
    ['overcharged / undercharged / unanswered', ...cell((x) => `${x.overcharged} / ${x.undercharged} / ${x.unanswered}`)],
    ['LOSSES', ...cell((_x, r) => String(r.losses))],
  ];
  return table(['', ...f.map((x) => `${x.db}, ${x.servers} server${x.servers > 1 ? 's' : ''}`)], rows);
}

/** The checks that failed, with what they found. */
export function failedChecks(results) {
  const lines = [];
  for (const r of results) {
    for (const c of r.checks) {
      if (!c.ok) lines.push(`${r.figures.db}: FAILED ${c.name}\n${String(c.detail ?? '').replace(/^/gm, '    ')}`);
    }
    if (r.figures.errorSamples?.length)
      lines.push(
        `${r.figures.db}: first internal errors logged:\n${r.figures.errorSamples.map((l) => '    ' + l.slice(0, 600)).join('\n')}`,
      );
  }
  return lines.join('\n');
}
