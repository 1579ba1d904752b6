import { Box, Text } from 'ink';
import { Paint } from './paint.js';
import { barCells, percent, type Row } from './words.js';

const BAR_WIDTH = 30;
const MAX_LABEL = 32;

function shortLabel(label: string): string {
  const chars = [...label];
  return chars.length > MAX_LABEL ? chars.slice(0, MAX_LABEL - 1).join('') + '…' : label;
}

/**
 * One bar per option, level or Yes/No, with its percentage; the top answer is marked
 * by a word as well as by colour, so it survives NO_COLOR and a pipe.
 */
export function Bars({ rows, topMark }: { rows: Row[]; topMark: string }) {
  const labelWidth = Math.max(...rows.map((row) => [...shortLabel(row.label)].length)) + 2;
  return (
    <Box flexDirection="column">
      {rows.map((row, i) => {
        const [filled, empty] = barCells(row.p, BAR_WIDTH);
        return (
          <Box key={i}>
            <Box width={labelWidth + 2} flexShrink={0}>
              <Paint bold={row.top}>{`  ${shortLabel(row.label)}`}</Paint>
            </Box>
            <Paint color={row.top ? 'cyan' : 'gray'}>{'█'.repeat(filled)}</Paint>
            <Paint dim>{'░'.repeat(empty)}</Paint>
            <Box width={8} justifyContent="flex-end" flexShrink={0}>
              <Text>{percent(row.p)}</Text>
            </Box>
            {row.top ? <Paint color="cyan">{`  ← ${topMark}`}</Paint> : null}
          </Box>
        );
      })}
    </Box>
  );
}
