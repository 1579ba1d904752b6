import { Box, Text } from 'ink';
import { barWidths, GAP, INDENT, SHARE_WIDTH } from './layout.js';
import { Paint } from './paint.js';
import { Prose } from './prose.js';
import { barCells, type Row } from './words.js';

/**
 * One bar per option, level or Yes/No, with its percentage; the top answer is marked
 * by a word as well as by colour, so it survives NO_COLOR and a pipe. A label too long
 * for its column wraps there, beside its bar.
 */
export function Bars({ rows, topMark, columns }: { rows: Row[]; topMark: string; columns: number }) {
  const mark = `  ← ${topMark}`;
  const widths = barWidths(
    rows.map((row) => row.label),
    mark,
    columns,
  );
  return (
    <Box flexDirection="column">
      {rows.map((row, i) => {
        const [filled, empty] = barCells(row.p, widths.bar);
        return (
          <Box key={i}>
            <Box width={INDENT + widths.label + GAP} paddingLeft={INDENT} paddingRight={GAP} flexShrink={0}>
              <Prose bold={row.top}>{row.label}</Prose>
            </Box>
            <Box flexShrink={0}>
              <Paint color={row.top ? 'cyan' : 'gray'}>{'█'.repeat(filled)}</Paint>
              <Paint dim>{'░'.repeat(empty)}</Paint>
            </Box>
            <Box width={SHARE_WIDTH} justifyContent="flex-end" flexShrink={0}>
              <Text>{row.share}</Text>
            </Box>
            {row.top ? <Paint color="cyan">{mark}</Paint> : null}
          </Box>
        );
      })}
    </Box>
  );
}
