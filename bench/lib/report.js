// Formatting: numbers, plain-text tables, and the lines of the summary table.

export const fmt = (x, digits = 2) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
export const fmtInt = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : 'n/a');
export const fmtMs = (x) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(2)} ms` : 'n/a');

export function table(rows, header, { left = 1 } = {}) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) =>
    cells
      .map((c, i) => (i < left ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/**
 * One line of the summary: `ours` against `baseline`, their ratio, and whether it
 * meets its goal (`min`: ratio ≥ min; `max`: ratio ≤ max); no goal, no verdict.
 */
export function ratioLine(measure, { ours, baseline, oursText, baselineText, min, max, digits = 3, note }) {
  const ratio = ours / baseline;
  return {
    measure,
    ours: oursText ?? fmt(ours),
    baseline: baselineText ?? fmt(baseline),
    result: Number.isFinite(ratio) ? `${fmt(ratio, digits)}x` : 'n/a',
    value: ratio,
    goal: min !== undefined ? `≥ ${min}` : max !== undefined ? `≤ ${max}` : '',
    met: min !== undefined ? ratio >= min : max !== undefined ? ratio <= max : null,
    note,
  };
}

/** A difference in milliseconds (ours − baseline), with an upper goal when given. */
export function overheadLine(measure, { oursMs, baselineMs, max, note }) {
  const d = oursMs - baselineMs;
  return {
    measure,
    ours: `${fmt(oursMs)} ms`,
    baseline: `${fmt(baselineMs)} ms`,
    result: fmtMs(d),
    value: d,
    goal: max !== undefined ? `≤ ${max} ms` : '',
    met: max !== undefined ? d <= max : null,
    note,
  };
}

export function verdict(met) {
  return met === true ? 'ok' : met === false ? 'MISS' : '';
}

/** The per-target detail table of an HTTP comparison. */
export function targetsTable(results, serverOf) {
  const rows = Object.values(results).map((r) => {
    const server = serverOf(r.name);
    return [
      `${r.name} c=${r.connections}`,
      fmtInt(r.ok),
      r.errors,
      fmtInt(r.perSecond),
      fmt(r.latencyMs.p50),
      fmt(r.latencyMs.p90),
      fmt(r.latencyMs.p99),
      fmt(r.latencyMs.max, 1),
      fmt(r.cpuMsPerRequest[server], 3),
      r.cpuMsPerRequest.engine == null ? '-' : fmt(r.cpuMsPerRequest.engine, 3),
      fmt(r.cpuMsPerRequest.loadgen, 3),
      fmt(r.cpuCores[server], 2),
      r.machineCores ? `${fmt(r.machineCores.busy, 2)}/${fmt(r.machineCores.notOurs, 2)}/${fmt(r.machineCores.steal, 2)}` : 'n/a',
    ];
  });
  return table(rows, [
    'target',
    'ok',
    'err',
    'req/s',
    'p50 ms',
    'p90 ms',
    'p99 ms',
    'max ms',
    'srv cpu ms/req',
    'engine cpu',
    'loadgen cpu',
    'srv cores',
    'machine busy/other/steal',
  ]);
}
