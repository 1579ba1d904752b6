import stringWidth from 'string-width';

/**
 * Column widths for a terminal `columns` wide. ink lays the boxes out and wraps text
 * at word boundaries; what it cannot know is how many cells a bar should draw, or how
 * wide a column must be in every row so the rows line up. Those are decided here,
 * from the width and the longest text, so every width of 60 columns or more fits.
 */

/**
 * Cells on screen, as ink lays text out and a terminal draws it: a CJK character or an
 * emoji takes two, a combining mark none. Counting code points made "東京オフィス" (6
 * of them, 12 cells) wrap in a column measured for 6. The same string-width as ink's.
 */
export const textWidth = (text: string): number => stringWidth(text);

const longest = (texts: readonly string[]): number => Math.max(0, ...texts.map(textWidth));

const clamp = (value: number, min: number, max: number): number => Math.max(min, Math.min(max, value));

/** A bar is never drawn wider than this: enough to compare, short enough to read across. */
export const BAR_MAX = 30;
const BAR_MIN = 12;

/** "  100.0%": the percentage after each bar, right-aligned. */
export const SHARE_WIDTH = 8;
/** The indent before the labels and the gap between a label and its bar. */
export const INDENT = 2;
export const GAP = 2;

export interface BarWidths {
  /** The label column; a longer label wraps in it. */
  label: number;
  /** Cells of the bar. */
  bar: number;
}

/**
 * The bars of one answer: the labels keep their width while the bar can give way,
 * down to a third of the room (at least BAR_MIN cells); past that, the labels wrap.
 * `mark` is what follows the top row ("  ← selected"); room for it is kept on every row.
 */
export function barWidths(labels: readonly string[], mark: string, columns: number): BarWidths {
  const room = columns - INDENT - GAP - SHARE_WIDTH - textWidth(mark);
  const wanted = longest(labels);
  const bar = clamp(room - wanted, clamp(Math.floor(room / 3), BAR_MIN, BAR_MAX), BAR_MAX);
  return { label: Math.max(1, Math.min(wanted, room - bar)), bar };
}

/** The stress table's fixed columns: the pivot's marker, "  Agrees", and the gap before a shift. */
export const MARKER_WIDTH = 2;
export const AGREES_WIDTH = 8;

export interface TableWidths {
  /** "  Shift", right-aligned: the gap and the widest shift. */
  shift: number;
  /** "  Answer": the gap and the widest answer, or less (it then wraps) so the checks keep room. */
  answer: number;
}

/**
 * The stress table: Agrees, Shift and Answer are kept whole and the check (its fact
 * quoted) takes what is left, wrapping. An answer (an option may be 100 characters)
 * gets at most what leaves the check 40% of the width.
 */
export function tableWidths(shifts: readonly string[], answers: readonly string[], columns: number): TableWidths {
  const shift = GAP + longest(['Shift', ...shifts]);
  const checkMin = Math.max(20, Math.floor(columns * 0.4));
  const answerMax = Math.max(GAP + textWidth('Answer'), columns - MARKER_WIDTH - AGREES_WIDTH - shift - checkMin);
  return { shift, answer: Math.min(GAP + longest(['Answer', ...answers]), answerMax) };
}

/** The usage screen's bar of today's free allowance: 20 cells, down to 10 beside its counts. */
const METER_MAX = 20;
const METER_MIN = 10;

export interface MeterWidth {
  /** Cells of the bar. */
  bar: number;
  /** On the line of its counts, after a gap; else on a line of its own below them. */
  beside: boolean;
}

/**
 * The allowance's bar after `counts` ("… 13 of 20 left"): it gives way to the counts,
 * which are never cut, and moves below them when fewer than METER_MIN cells are left.
 */
export function meterWidth(counts: string, columns: number): MeterWidth {
  const room = columns - textWidth(counts) - GAP;
  if (room >= METER_MIN) return { bar: Math.min(METER_MAX, room), beside: true };
  return { bar: Math.min(METER_MAX, columns), beside: false };
}

/**
 * Where a cell may break: between words, and in a column of dotted names
 * ("sufficiency.insufficient.needsContextRate") also after each dot, the dot kept
 * at the end of the line it closes.
 */
export function piecesOf(word: string, dotted: boolean): string[] {
  return dotted ? word.split(/(?<=\.)(?=[A-Za-z])/) : [word];
}

/** The narrowest a column can wrap `text` to without breaking a word (or, `dotted`, a name between its dots). */
const narrowest = (text: string, dotted: boolean): number => longest(text.split(' ').flatMap((word) => piecesOf(word, dotted)));

/**
 * Widths of a table's columns for a terminal `columns` wide, `gap` cells between them:
 * each column as wide as its widest cell when that fits; else the columns of dotted
 * names give way first, then the widest columns (their cells then wrap between
 * words), never below their longest word (or, dotted, the longest part of a name).
 * Undefined when even that does not fit: the table is then shown one row at a time.
 */
export function columnWidths(
  rows: readonly (readonly string[])[],
  columns: number,
  dotted: readonly number[] = [],
  gap = GAP,
): number[] | undefined {
  const count = Math.max(0, ...rows.map((row) => row.length));
  const cells = (i: number) => rows.map((row) => row[i] ?? '');
  const widths = Array.from({ length: count }, (_, i) => longest(cells(i)));
  const least = Array.from({ length: count }, (_, i) => Math.max(0, ...cells(i).map((cell) => narrowest(cell, dotted.includes(i)))));
  const room = columns - gap * Math.max(0, count - 1);
  if (least.reduce((a, b) => a + b, 0) > room) return undefined;
  let total = widths.reduce((a, b) => a + b, 0);
  // Dotted names give way first: broken after a dot, a name still reads as one.
  for (const i of dotted) {
    const given = Math.min(total - room, widths[i] - least[i]);
    if (given > 0) {
      widths[i] -= given;
      total -= given;
    }
  }
  while (total > room) {
    // The widest column that can still give way gives one cell.
    let widest = -1;
    for (let i = 0; i < count; i++) if (widths[i] > least[i] && (widest === -1 || widths[i] > widths[widest])) widest = i;
    widths[widest]--;
    total--;
  }
  return widths;
}
