import { Box, render, Text } from 'ink';
import type { EvalReport, QualityFigures } from '../../eval/report.js';
import { duration } from '../client-call.js';
import type { ReactNode } from 'react';
import { printView, terminalOf } from './present.js';
import { Fields } from './fields.js';
import { Table } from './table.js';
import { columnWidths, textWidth } from './layout.js';
import { ColorScope, Paint } from './paint.js';
import { Prose, words } from './prose.js';
import { counted } from '../../contract/words.js';
import { MODES } from '../../contract/modes.js';
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

/** The width of the sections' names ("Decisive fact"); what they say wraps under itself, after them. */
const SECTION = 16;

function Section({ name, children }: { name: string; children: ReactNode }) {
  return (
    <Box>
      <Box width={SECTION} flexShrink={0}>
        <Text>{name}</Text>
      </Box>
      <Box flexDirection="column" flexGrow={1} flexShrink={1} flexBasis={0}>
        {children}
      </Box>
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

/**
 * A row of the order tables: the probability stated for something (or the share of
 * top answers shown there) beside how often it is right, in percent, the difference
 * in points, and its interval.
 */
function biasCells(
  report: EvalReport,
  path: string,
  what: string,
  share: { stated: number | null; truth: number | null; bias: number | null },
) {
  const range = report.intervals[`${path}.bias`];
  const n = (v: number | null) => (v === null ? '–' : (v * 100).toFixed(1));
  return [what, n(share.stated), n(share.truth), points(share.bias), range ? `[${points(range.low)}, ${points(range.high)}]` : ''];
}

/** Coverage and accuracy at each confidence cut-point: across, or down when across does not fit. */
function gatingRows(gating: EvalReport['gating'], columns: number): string[][] {
  const across = [
    ['confidence ≥', ...gating.riskCoverage.map((row) => row.cut.toFixed(1))],
    ['covered', ...gating.riskCoverage.map((row) => share(row.coverage))],
    ['right', ...gating.riskCoverage.map((row) => share(row.accuracy))],
  ];
  if (columnWidths(across, columns)) return across;
  return across[0].map((_, i) => across.map((row) => row[i]));
}

export function EvalTable({ report, columns }: { report: EvalReport; columns: number }) {
  const { positionBias: bias, sufficiency, decisiveFact, failed, gating } = report;
  const codes = Object.entries(failed.byCode)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  const flips = (group: 'complete' | 'twins') =>
    `${withInterval(report, `positionBias.${group}.flipRate`, bias[group].flipRate, true)} of ${bias[group].n}`;
  const byMode = MODES.filter((mode) => bias.complete.modes[mode].n)
    .map(
      (mode) => `${mode} ${withInterval(report, `positionBias.complete.modes.${mode}.flipRate`, bias.complete.modes[mode].flipRate, true)}`,
    )
    .join(', ');
  const target = gating.target;
  const inner = columns - SECTION;
  const places = (['first', 'middle', 'last'] as const).map((place) =>
    biasCells(report, `positionBias.places.${place}`, `shown ${place === 'middle' ? 'between' : place}`, {
      stated: bias.places[place].top,
      truth: bias.places[place].truth,
      bias: bias.places[place].bias,
    }),
  );
  const stated = [
    ...(bias.middleLevel.n ? [biasCells(report, 'positionBias.middleLevel', 'middle level', bias.middleLevel)] : []),
    ...(bias.yes.n ? [biasCells(report, 'positionBias.yes', 'yes', bias.yes)] : []),
  ];
  const shortcuts = Object.entries(report.shortcuts).filter(([, s]) => s !== null) as [
    string,
    NonNullable<EvalReport['shortcuts']['choice']>,
  ][];
  return (
    <Box flexDirection="column">
      <Prose bold>
        {`${report.engine.name}, model ${report.engine.model}${report.engine.debias ? `, debias ${report.engine.debias}` : ''}${report.depth === 'stress' ? ', stress depth' : ''}`}
      </Prose>
      <Prose>
        {`${report.set.file}${report.set.half ? ` (${report.set.half} half)` : ''}: ${report.set.items} items (${report.set.insufficient} without their deciding fact), ` +
          `${report.asked} decisions in ${took(report.durationMs)}; [intervals] are 95 %`}
      </Prose>
      <Box marginTop={1}>
        <Table
          rows={[
            ['', 'n', 'accuracy', 'Brier', 'log loss', 'ECE'],
            qualityCells(report, 'overall', 'overall', report.overall),
            ...Object.entries(report.modes).flatMap(([mode, q]) => (q.n ? [qualityCells(report, mode, `modes.${mode}`, q)] : [])),
          ]}
          columns={columns}
          right={[1, 2, 3, 4, 5]}
        />
      </Box>
      <Box marginTop={1} flexDirection="column">
        {shortcuts.length ? (
          <Section name="Shortcuts">
            <Fields
              fields={shortcuts.map(([mode, s]) => ({
                label: mode,
                value: `best rule ${s.best.rule} ${pct(s.best.accuracy)}, chance ${pct(s.chance)}`,
              }))}
            />
          </Section>
        ) : null}
        {bias.complete.n || bias.twins.n ? (
          <Section name="Order">
            <Prose>{`another order (${bias.orders} asked) changed the top answer of ${flips('complete')} complete items, ${flips('twins')} twins`}</Prose>
            {byMode ? (
              <Prose>{`complete items by mode: ${byMode} (a choice is shown sorted; levels and yes/no measure the pull of a place)`}</Prose>
            ) : null}
            {bias.places.n ? (
              <Table rows={[['', 'on top %', 'right %', 'gain', '[95 %]'], ...places]} columns={inner} right={[1, 2, 3]} />
            ) : null}
            {stated.length ? (
              <Table rows={[['', 'stated %', 'right %', 'off by', '[95 %]'], ...stated]} columns={inner} right={[1, 2, 3]} />
            ) : null}
            <Prose>{`primacy ${signed(bias.primacy)}`}</Prose>
          </Section>
        ) : (
          <Section name="Order">
            <Prose>not measured (stress depth asks each item in its own order)</Prose>
          </Section>
        )}
        <Section name="Sufficiency">
          <Prose>
            {`AUROC ${withInterval(report, 'sufficiency.auroc', sufficiency.auroc, false)}: ${sufficiency.sufficient.n} sufficient, ${sufficiency.insufficient.n} insufficient contexts; ` +
              `needs-context on ${pct(sufficiency.sufficient.needsContextRate)} of sufficient, ${pct(sufficiency.insufficient.needsContextRate)} of insufficient`}
          </Prose>
        </Section>
        <Section name="Decisive fact">
          <Prose>
            {`answer changed on ${pct(decisiveFact.changedRate)} without it, mean shift ${fixed(decisiveFact.meanShift)}, pull toward the right answer ${signed(decisiveFact.pull)} (${counted(decisiveFact.n, 'item')})`}
          </Prose>
          {decisiveFact.pivots.n > 0 ? (
            <Prose>
              {`a pivot named on ${pct(decisiveFact.pivots.named)} of complete items, another fact than the decisive one on ${pct(decisiveFact.pivots.wrong)} (${counted(decisiveFact.pivots.n, 'item')})`}
            </Prose>
          ) : null}
        </Section>
        <Section name="Gating">
          <Table rows={gatingRows(gating, inner)} columns={inner} right={[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]} />
          {target ? (
            <Prose>
              {target.cut === null
                ? `no cut-point reaches ${pct(target.accuracy)} right`
                : `${pct(target.accuracy)} right from confidence ${fixed(target.cut, 2)}: ${pct(target.coverage)} covered, ${pct(target.reached)} right`}
            </Prose>
          ) : null}
        </Section>
        <Section name="Failed">
          {failed.count ? <Prose tone="bad">{`${failed.count} decisions: ${codes}`}</Prose> : <Text>none</Text>}
        </Section>
      </Box>
    </Box>
  );
}

/** The report on stdout, at the terminal's width (80 on a pipe): coloured on a terminal, plain text in a pipe. */
export function printReport(report: EvalReport): void {
  printView((columns) => <EvalTable report={report} columns={columns} />);
}
