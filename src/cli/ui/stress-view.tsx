import { Box, Text } from 'ink';
import type { Stress } from '../../contract/index.js';
import { AGREES_WIDTH, GAP, MARKER_WIDTH, tableWidths } from './layout.js';
import { Paint } from './paint.js';
import { Prose } from './prose.js';
import { columnDecimals, percentTo } from './percent.js';
import { PIVOT_NAME, pivotWords } from '../../contract/wording.js';
import { checkName, noPivotWords, quote, SHIFT_WORDS, stressHeadline, tiedWithPivot, topAnswer } from './words.js';

interface CellsProps {
  name: string;
  agrees: string;
  shift: string;
  answer: string;
  widths: ReturnType<typeof tableWidths>;
  pivot?: boolean;
  disagrees?: boolean;
}

/** The pivot's mark, "»" before its row and its sentence: a character, so it shows without colour too. */
function Marker({ shown }: { shown?: boolean }) {
  return (
    <Box width={MARKER_WIDTH} flexShrink={0}>
      {shown ? (
        <Paint color="yellow" bold>
          »
        </Paint>
      ) : null}
    </Box>
  );
}

/** One row of the table: the check wraps in what is left of the width, the other cells stay whole. */
function Cells({ name, agrees, shift, answer, widths, pivot, disagrees }: CellsProps) {
  return (
    <Box>
      <Marker shown={pivot} />
      <Box flexGrow={1} flexShrink={1} flexBasis={0}>
        <Prose bold={pivot} color={pivot ? 'yellow' : undefined}>
          {name}
        </Prose>
      </Box>
      <Box width={AGREES_WIDTH} paddingLeft={GAP} flexShrink={0}>
        <Paint tone={disagrees ? 'bad' : undefined}>{agrees}</Paint>
      </Box>
      <Box width={widths.shift} justifyContent="flex-end" flexShrink={0}>
        <Text>{shift}</Text>
      </Box>
      <Box width={widths.answer} paddingLeft={GAP} flexShrink={0}>
        <Prose>{answer}</Prose>
      </Box>
    </Box>
  );
}

/**
 * The checks of a stress test as a table, and the decisive fact (the pivot) below it. Shifts show a
 * tenth of a per cent, or a hundredth when a tenth would show two of them alike, so
 * the pivot (the largest shift) never looks tied with a fact it beat.
 */
export function StressView({ stress, columns }: { stress: Stress; columns: number }) {
  const { checks, pivot } = stress;
  const decimals = columnDecimals(checks.map((check) => check.shift));
  const shifts = checks.map((check) => percentTo(check.shift, decimals));
  const answers = checks.map((check) => topAnswer(check.result));
  const widths = tableWidths(shifts, answers, columns);
  const tied = tiedWithPivot(stress);
  return (
    <Box flexDirection="column" marginTop={1}>
      <Prose>{stressHeadline(stress)}</Prose>
      <Prose dim>{SHIFT_WORDS}</Prose>
      <Cells name="Check" agrees="Agrees" shift="Shift" answer="Answer" widths={widths} />
      {checks.map((check, i) => (
        <Cells
          key={i}
          name={checkName(check)}
          agrees={check.agrees ? 'yes' : 'no'}
          disagrees={!check.agrees}
          shift={shifts[i]}
          answer={answers[i]}
          widths={widths}
          pivot={pivot !== null && check.kind === 'without-fact' && check.factIndex === pivot.factIndex}
        />
      ))}
      <Box marginTop={1}>
        <Marker shown={pivot !== null} />
        {pivot ? (
          <Box flexDirection="column" flexGrow={1} flexShrink={1} flexBasis={0}>
            <Prose color="yellow" bold>{`${PIVOT_NAME} ${pivot.factIndex + 1}: ${quote(pivot.fact, 200)}`}</Prose>
            <Prose>
              {pivotWords(pivot, percentTo(pivot.shift, decimals)) +
                (tied.length ? ` Leaving out fact ${tied.map((i) => i + 1).join(' or ')} moves it as much; the first is named.` : '')}
            </Prose>
          </Box>
        ) : (
          <Box flexGrow={1} flexShrink={1} flexBasis={0}>
            <Prose>{noPivotWords(checks)}</Prose>
          </Box>
        )}
      </Box>
    </Box>
  );
}
