import { Box, render, renderToString, Text } from 'ink';
import type { EvalReport, QualityFigures } from '../../eval/report.js';
import { duration } from '../client-call.js';
import { terminalOf } from './present.js';
import { textWidth } from './layout.js';
import { ColorScope, Paint } from './paint.js';
import { words } from './prose.js';
import { counted } from '../../contract/words.js';
import { barCells } from './words.js';

/** The human output of `decide eval`: a live bar while it runs, then the figures as a table. */

const BAR_WIDTH = 30;
const LABEL = 'Evaluating ';

/**
 * The progress line, fitted to `columns`: the bar gives way (down to 10 cells) to
 * the counts, and what still does not fit wraps between words.
 */
export function EvalProgress(props: { done: number; total: number; failed: number; elapsedMs: number; columns: number }) {
  const { done, total, failed, elapsedMs, columns } = props;
  const left = done > 0 && done < total ? `about ${duration(Math.ceil(((total - done) * elapsedMs) / done / 1000))} left` : '';
  const counts = `${done}/${total} decisions${failed || left ? ',' : ''}`;
  const failures = failed ? `${failed} failed${left ? ',' : ''}` : '';
  const rest = [counts, failures, left].filter(Boolean).join(' ');
  const [filled, empty] = barCells(
    total ? done / total : 1,
    Math.max(10, Math.min(BAR_WIDTH, columns - textWidth(LABEL) - 1 - textWidth(rest))),
  );
  return (
    <Box>
      <Text>{LABEL}</Text>
      <Box flexShrink={0} marginRight={1}>
        <Paint color="cyan">{'█'.repeat(filled)}</Paint>
        <Paint dim>{'░'.repeat(empty)}</Paint>
      </Box>
      <Box flexGrow={1} flexShrink={1} flexBasis={0} flexWrap="wrap" columnGap={1}>
        {words(counts, {}, 'c')}
        {words(failures, { tone: 'bad' }, 'f')}
        {words(left, {}, 'l')}
      </Box>
    </Box>
  );
}

/**
 * Redraws at most ten times a second: a fast engine settles hundreds of decisions a
 * second. Its shape is checked against `Progress` where eval-progress.ts returns it.
 */
export function liveProgress(total: number) {
  const { color, columns } = terminalOf();
  const started = Date.now();
  let last = 0;
  const frame = (done: number, failed: number) => (
    <ColorScope color={color}>
      <EvalProgress
        done={done}
        total={total}
        failed={failed}
        elapsedMs={Date.now() - started}
        columns={process.stdout.columns || columns}
      />
    </ColorScope>
  );
  const app = render(frame(0, 0), { patchConsole: false });
  return {
    update(done: number, failed: number) {
      const now = Date.now();
      if (now - last < 100 && done < total) return;
      last = now;
      app.rerender(frame(done, failed));
    },
    async stop() {
      app.unmount();
      await app.waitUntilExit();
    },
  };
}

const took = (ms: number) => (ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : duration(Math.round(ms / 1000)));
const fixed = (value: number | null | undefined, digits = 3) => (value === null || value === undefined ? '–' : value.toFixed(digits));
const pct = (value: number | null | undefined) => (value === null || value === undefined ? '–' : `${(value * 100).toFixed(1)}%`);
const points = (value: number | null | undefined) =>
  value === null || value === undefined ? '–' : `${value >= 0 ? '+' : '−'}${Math.abs(value * 100).toFixed(1)}`;
const share = (value: number | null) => (value === null ? '–' : `${Math.round(value * 100)}%`);
const signed = (value: number | null) => (value === null ? '–' : `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(3)}`);

const COLUMNS = [
  { title: '', width: 9 },
  { title: 'n', width: 6 },
  { title: 'accuracy', width: 18 },
  { title: 'Brier', width: 8 },
  { title: 'log loss', width: 19 },
  { title: 'ECE', width: 19 },
];

function Row({ cells, bold }: { cells: string[]; bold?: boolean }) {
  return (
    <Box>
      {cells.map((cell, i) => (
        <Box key={i} width={COLUMNS[i].width} justifyContent={i === 0 ? 'flex-start' : 'flex-end'} flexShrink={0}>
          <Paint bold={bold}>{cell}</Paint>
        </Box>
      ))}
    </Box>
  );
}

/** A figure with its 95 % interval: `57.1% [45–69]` for shares, `1.026 [0.95–1.10]` otherwise. */
function withInterval(report: EvalReport, path: string, value: number | null, share: boolean): string {
  const range = report.intervals[path];
  if (value === null) return '–';
  if (!range) return share ? pct(value) : fixed(value);
  return share
    ? `${pct(value)} [${Math.round(range.low * 100)}–${Math.round(range.high * 100)}]`
    : `${fixed(value)} [${range.low.toFixed(2)}–${range.high.toFixed(2)}]`;
}

const qualityCells = (report: EvalReport, name: string, path: string, q: QualityFigures) => [
  name,
  String(q.n),
  withInterval(report, `${path}.accuracy`, q.accuracy, true),
  fixed(q.brier),
  withInterval(report, `${path}.logLoss`, q.logLoss, false),
  withInterval(report, `${path}.ece`, q.ece, false),
];

/** A place of the order table: the share of top answers shown there beside the share right, and what an answer gains by standing there, in points. */
function placeRow(
  report: EvalReport,
  place: string,
  what: string,
  share: { top: number | null; truth: number | null; bias: number | null },
): string {
  return biasRow(report, `positionBias.places.${place}`, what, { stated: share.top, truth: share.truth, bias: share.bias });
}

/** One line of the order table: the probability stated for something beside how often it is right, in percent, and the difference in points. */
function biasRow(
  report: EvalReport,
  path: string,
  what: string,
  share: { stated: number | null; truth: number | null; bias: number | null },
): string {
  const range = report.intervals[`${path}.bias`];
  const n = (v: number | null) => (v === null ? '–' : (v * 100).toFixed(1));
  const interval = range ? ` [${points(range.low)}, ${points(range.high)}]` : '';
  return `                  ${what.padEnd(14)}${n(share.stated).padStart(6)} vs ${n(share.truth).padStart(5)}  ${points(share.bias).padStart(6)}${interval}`;
}

export function EvalTable({ report }: { report: EvalReport }) {
  const { positionBias: bias, sufficiency, decisiveFact, failed, gating } = report;
  const codes = Object.entries(failed.byCode)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  const flips = (group: 'complete' | 'twins') =>
    `${withInterval(report, `positionBias.${group}.flipRate`, bias[group].flipRate, true)} of ${bias[group].n}`;
  const target = gating.target;
  return (
    <Box flexDirection="column">
      <Paint
        bold
      >{`${report.engine.name}, model ${report.engine.model}${report.engine.debias ? `, debias ${report.engine.debias}` : ''}${report.depth === 'stress' ? ', stress depth' : ''}`}</Paint>
      <Text>
        {`${report.set.file}${report.set.half ? ` (${report.set.half} half)` : ''}: ${report.set.items} items (${report.set.insufficient} without their deciding fact), ` +
          `${report.asked} decisions in ${took(report.durationMs)}; [intervals] are 95 %`}
      </Text>
      <Box marginTop={1} flexDirection="column">
        <Row cells={COLUMNS.map((c) => c.title)} bold />
        <Row cells={qualityCells(report, 'overall', 'overall', report.overall)} />
        {Object.entries(report.modes).map(([mode, q]) =>
          q.n ? <Row key={mode} cells={qualityCells(report, mode, `modes.${mode}`, q)} /> : null,
        )}
      </Box>
      <Box marginTop={1} flexDirection="column">
        {shortcutLines(report).map((line, i) => (
          <Text key={i}>{line}</Text>
        ))}
        {bias.complete.n || bias.twins.n ? (
          <>
            <Text>{`Order           another order (${bias.orders} asked) changed the top answer of`}</Text>
            <Text>{`                ${flips('complete')} complete items, ${flips('twins')} twins`}</Text>
            <Text>{'                on top vs right, in percent, and what an answer gains there:'}</Text>
            {bias.places.n ? <Text>{placeRow(report, 'first', 'shown first', bias.places.first)}</Text> : null}
            {bias.places.n ? <Text>{placeRow(report, 'middle', 'shown between', bias.places.middle)}</Text> : null}
            {bias.places.n ? <Text>{placeRow(report, 'last', 'shown last', bias.places.last)}</Text> : null}
            <Text>{'                probability stated vs right, in percent, and the difference:'}</Text>
            {bias.middleLevel.n ? <Text>{biasRow(report, 'positionBias.middleLevel', 'middle level', bias.middleLevel)}</Text> : null}
            {bias.yes.n ? <Text>{biasRow(report, 'positionBias.yes', 'yes', bias.yes)}</Text> : null}
            <Text>{`                primacy ${signed(bias.primacy)}`}</Text>
          </>
        ) : (
          <Text>Order not measured (stress depth asks each item in its own order)</Text>
        )}
        <Text>{`Sufficiency     AUROC ${withInterval(report, 'sufficiency.auroc', sufficiency.auroc, false)}: ${sufficiency.sufficient.n} sufficient, ${sufficiency.insufficient.n} insufficient contexts`}</Text>
        <Text>
          {`                needs-context on ${pct(sufficiency.sufficient.needsContextRate)} of sufficient, ` +
            `${pct(sufficiency.insufficient.needsContextRate)} of insufficient`}
        </Text>
        <Text>
          {`Decisive fact   answer changed on ${pct(decisiveFact.changedRate)} without it, ` +
            `mean shift ${fixed(decisiveFact.meanShift)} (${counted(decisiveFact.n, 'item')})`}
        </Text>
        <Text>{`Gating          confidence ≥ ${gating.riskCoverage.map((row) => row.cut.toFixed(1).padStart(5)).join('')}`}</Text>
        <Text>{`                covered      ${gating.riskCoverage.map((row) => share(row.coverage).padStart(5)).join('')}`}</Text>
        <Text>{`                right        ${gating.riskCoverage.map((row) => share(row.accuracy).padStart(5)).join('')}`}</Text>
        {target ? (
          <Text>
            {target.cut === null
              ? `                no cut-point reaches ${pct(target.accuracy)} right`
              : `                ${pct(target.accuracy)} right from confidence ${fixed(target.cut, 2)}: ${pct(target.coverage)} covered, ${pct(target.reached)} right`}
          </Text>
        ) : null}
        {failed.count ? <Paint tone="bad">{`Failed          ${failed.count} decisions: ${codes}`}</Paint> : <Text>Failed none</Text>}
      </Box>
    </Box>
  );
}

/** Beside accuracy, the best rule that answers without reading the items (the set's own weakness, not the engine's). */
function shortcutLines(report: EvalReport): string[] {
  const modes = Object.entries(report.shortcuts).filter(([, s]) => s !== null) as [
    string,
    NonNullable<EvalReport['shortcuts']['choice']>,
  ][];
  return modes.map(
    ([mode, s], i) =>
      `${i === 0 ? 'Shortcuts'.padEnd(16) : ''.padEnd(16)}${mode.padEnd(7)}best rule ${s.best.rule} ${pct(s.best.accuracy)}, chance ${pct(s.chance)}`,
  );
}

/** The table on stdout: coloured on a terminal, plain text in a pipe. */
export function printReport(report: EvalReport): void {
  const terminal = terminalOf();
  const table = (
    <ColorScope color={terminal.color}>
      <EvalTable report={report} />
    </ColorScope>
  );
  process.stdout.write(renderToString(table, { columns: terminal.columns }) + '\n');
}
