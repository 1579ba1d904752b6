import { Box } from 'ink';
import type { Fit } from '../../eval/calibrate.js';
import type { Calibration } from '../../ledger/store.js';
import { calibrationRows, fitRows } from '../calibrate-view.js';
import { Fields } from './fields.js';
import { printView } from './present.js';
import { Prose } from './prose.js';
import { Table } from './table.js';

/** The figures' columns (all but the target and whether it was kept) are aligned right. */
const FIGURES = [1, 3, 4, 5, 6];

/** `decide calibrate`: what was run, the fits as a table, each target's verdict, and what serve now applies. */
export function FitReport({ intro, fits, kept, columns }: { intro: string; fits: readonly Fit[]; kept: string; columns: number }) {
  return (
    <Box flexDirection="column" rowGap={1}>
      <Prose>{intro}</Prose>
      <Table rows={fitRows(fits)} columns={columns} right={FIGURES} />
      <Fields fields={fits.map((fit) => ({ label: fit.target, value: fit.reason }))} />
      <Prose>{kept}</Prose>
    </Box>
  );
}

/** `decide calibrate --show`: every scaling the ledger holds. */
export function CalibrationTable({ all, columns }: { all: readonly Calibration[]; columns: number }) {
  return <Table rows={calibrationRows(all)} columns={columns} />;
}

export const printFitReport = (intro: string, fits: readonly Fit[], kept: string) =>
  printView((columns) => <FitReport intro={intro} fits={fits} kept={kept} columns={columns} />);

export const printCalibrations = (all: readonly Calibration[]) => printView((columns) => <CalibrationTable all={all} columns={columns} />);
