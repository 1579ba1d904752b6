import { Box } from 'ink';
import { printView } from './present.js';
import { Prose } from './prose.js';
import { Table } from './table.js';

/** `decide eval --compare` for people: which runs, then the differences, the figures aligned right. */
export function printComparison({ intro, rows }: { intro: string[]; rows: string[][] }): void {
  printView((columns) => (
    <Box flexDirection="column" rowGap={1}>
      <Box flexDirection="column">
        {intro.map((line, i) => (
          <Prose key={i}>{line}</Prose>
        ))}
      </Box>
      <Table rows={rows} columns={columns} right={[1, 2, 3]} dotted={[0]} />
    </Box>
  ));
}
