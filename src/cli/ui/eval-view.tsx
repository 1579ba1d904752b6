import { Box, render, renderToString, Text } from 'ink';
import type { EvalReport, QualityFigures } from '../../eval/report.js';
import { duration } from '../client-call.js';
import { terminalOf } from './present.js';
import { ColorScope, Paint } from './paint.js';
import { words } from './prose.js';
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
  const [filled, empty] = barCells(total ? done / total : 1, Math.max(10, Math.min(BAR_WIDTH, columns - LABEL.length - 1 - rest.length)));
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
      <EvalProgress done={done} total={total} failed={failed} elapsedMs={Date.now() - started} columns={process.stdout.columns || columns} />
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
const fixed = (value: number | null, digits = 3) => (value === null ? '–' : value.toFixed(digits));
const pct = (value: number | null) => (value === null ? '–' : `${(value * 100).toFixed(1)}%`);
const signed = (value: number | null) => (value === null ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(3)}`);

const COLUMNS = [
  { title: '', width: 9 },
  { title: 'n', width: 6 },
  { title: 'accuracy', width: 10 },
  { title: 'Brier', width: 8 },
  { title: 'log loss', width: 10 },
  { title: 'ECE', width: 8 },
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

const qualityCells = (name: string, q: QualityFigures) => [name, String(q.n), pct(q.accuracy), fixed(q.brier), fixed(q.logLoss), fixed(q.ece)];

export function EvalTable({ report }: { report: EvalReport }) {
  const { positionBias: bias, sufficiency, decisiveFact, failed } = report;
  const codes = Object.entries(failed.byCode)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  return (
    <Box flexDirection="column">
      <Paint bold>{`${report.engine.name}, model ${report.engine.model}${report.engine.debias ? `, debias ${report.engine.debias}` : ''}${report.depth === 'stress' ? ', stress depth' : ''}`}</Paint>
      <Text>
        {`${report.set.file}: ${report.set.items} items (${report.set.insufficient} without their deciding fact), ` +
          `${report.asked} decisions in ${took(report.durationMs)}`}
      </Text>
      <Box marginTop={1} flexDirection="column">
        <Row cells={COLUMNS.map((c) => c.title)} bold />
        <Row cells={qualityCells('overall', report.overall)} />
        {Object.entries(report.modes).map(([mode, q]) => (q.n ? <Row key={mode} cells={qualityCells(mode, q)} /> : null))}
      </Box>
      <Box marginTop={1} flexDirection="column">
        <Text>
          {`Position bias   flip rate ${pct(bias.flipRate)}, mean shift ${fixed(bias.meanShift)}, ` +
            `primacy ${signed(bias.primacy)} (${bias.n} items)`}
        </Text>
        <Text>{`Sufficiency     AUROC ${fixed(sufficiency.auroc)} (${sufficiency.sufficient.n} sufficient, ${sufficiency.insufficient.n} insufficient contexts)`}</Text>
        <Text>
          {`                needs-context on ${pct(sufficiency.sufficient.needsContextRate)} of sufficient, ` +
            `${pct(sufficiency.insufficient.needsContextRate)} of insufficient`}
        </Text>
        <Text>
          {`Decisive fact   answer changed on ${pct(decisiveFact.changedRate)} without it, ` +
            `mean shift ${fixed(decisiveFact.meanShift)} (${decisiveFact.n} items)`}
        </Text>
        {failed.count ? <Paint tone="bad">{`Failed          ${failed.count} decisions: ${codes}`}</Paint> : <Text>Failed          none</Text>}
      </Box>
    </Box>
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
