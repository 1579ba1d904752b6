import { Box } from 'ink';
import { Fields } from './fields.js';
import { columnWidths, GAP, piecesOf } from './layout.js';
import { Paint } from './paint.js';
import { Prose, words } from './prose.js';

export interface TableProps {
  /** The header first, then the rows; a cell is text, wrapped between words when its column must give way. */
  rows: readonly (readonly string[])[];
  columns: number;
  /** The columns aligned right (figures), by index. */
  right?: readonly number[];
  /** The columns of dotted names, which may also break after a dot. */
  dotted?: readonly number[];
}

/** A cell's words, each a box its pieces wrap in (layout.ts's piecesOf), for a box that wraps between words. */
function Cell({ text, bold, dotted }: { text: string; bold: boolean; dotted: boolean }) {
  if (!dotted) return <>{words(text, { bold })}</>;
  return (
    <>
      {text
        .split(' ')
        .filter((word) => word !== '')
        .map((word, i) => (
          <Box key={i} flexWrap="wrap">
            {piecesOf(word, true).map((piece, j) => (
              <Paint key={j} bold={bold}>
                {piece}
              </Paint>
            ))}
          </Box>
        ))}
    </>
  );
}

/**
 * A table as wide as the terminal allows (layout.ts's columnWidths). When even its
 * longest words do not fit side by side, each row is shown on its own instead: its
 * first cell as a title, then every other cell beside its column's name, wrapping
 * under itself.
 */
export function Table({ rows, columns, right = [], dotted = [] }: TableProps) {
  const widths = columnWidths(rows, columns, dotted);
  const [header, ...body] = rows;
  if (!widths) {
    return (
      <Box flexDirection="column">
        {body.map((row, r) => (
          <Box key={r} flexDirection="column">
            <Prose bold>{row[0]}</Prose>
            <Box paddingLeft={GAP} flexDirection="column">
              <Fields fields={header.slice(1).map((label, i) => ({ label, value: row[i + 1] }))} />
            </Box>
          </Box>
        ))}
      </Box>
    );
  }
  return (
    <Box flexDirection="column">
      {rows.map((row, r) => (
        <Box key={r}>
          {row.map((cell, i) => (
            <Box
              key={i}
              width={widths[i] + (i ? GAP : 0)}
              paddingLeft={i ? GAP : 0}
              flexShrink={0}
              flexWrap="wrap"
              columnGap={1}
              justifyContent={right.includes(i) ? 'flex-end' : 'flex-start'}
            >
              <Cell text={cell} bold={r === 0} dotted={dotted.includes(i)} />
            </Box>
          ))}
        </Box>
      ))}
    </Box>
  );
}
