/**
 * What a terminal shows once `output` has been written to it: the text left on each
 * line, after the cursor moves and erasures. It reads what ink and its log writer send
 * (carriage return and newline, cursor up/down/left/right, column, line and screen
 * erasure) and skips every other sequence (styles, cursor visibility, synchronised
 * output). Enough to see a line left blank or a line drawn twice, which the raw
 * stream of escape codes hides.
 */

const SEQUENCE = /\x1b\[([?0-9;]*)([@-~])|\x1b\][^\x07]*\x07|\x1b[@-Z\\-_]|[^\x1b]/gsu;

export function screenOf(output: string, columns: number): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = (r: number) => {
    while (lines.length <= r) lines.push([]);
    return lines[r];
  };
  for (const [token, params, final] of output.matchAll(SEQUENCE)) {
    const n = Number(params?.split(';')[0] || 0);
    if (final !== undefined) {
      if (final === 'A') row = Math.max(0, row - (n || 1));
      else if (final === 'B') row += n || 1;
      else if (final === 'C') col = Math.min(columns - 1, col + (n || 1));
      else if (final === 'D') col = Math.max(0, col - (n || 1));
      else if (final === 'G') col = Math.max(0, (n || 1) - 1);
      else if (final === 'K') {
        const cells = line(row);
        if (n === 0) cells.length = Math.min(cells.length, col);
        else if (n === 1) cells.fill(' ', 0, Math.min(cells.length, col + 1));
        else cells.length = 0;
      } else if (final === 'J' && n === 0) {
        line(row).length = Math.min(line(row).length, col);
        lines.length = row + 1;
      } else if (final === 'J') lines.length = 0;
      continue;
    }
    if (token.startsWith('\x1b')) continue;
    if (token === '\r') col = 0;
    else if (token === '\n') row++;
    else if (token === '\b') col = Math.max(0, col - 1);
    else if (token >= ' ') {
      if (col >= columns) {
        row++;
        col = 0;
      }
      const cells = line(row);
      while (cells.length < col) cells.push(' ');
      cells[col++] = token;
    }
  }
  const shown = lines.map((cells) => cells.join('').trimEnd());
  while (shown.length && shown.at(-1) === '') shown.pop();
  return shown;
}
