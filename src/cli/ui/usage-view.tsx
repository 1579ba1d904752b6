import { Box } from 'ink';
import type { Usage } from '../../contract/index.js';
import { GAP, meterWidth } from './layout.js';
import { Paint } from './paint.js';
import { Prose, words } from './prose.js';
import { timeOfDayWords } from '../when.js';
import { barCells, untilWords } from './words.js';

/**
 * Today's free allowance as a bar, and the pass's credits, laid out for a terminal
 * `columns` wide: the counts are never cut; the bar gives way to them, or moves below.
 */
export function UsageView({ usage, columns, now }: { usage: Usage; columns: number; now?: number }) {
  const counts = `Free decisions today (${usage.day}): ${usage.freeRemaining} of ${usage.freeLimit} left`;
  const meter = meterWidth(counts, columns);
  const share = usage.freeLimit > 0 ? usage.freeRemaining / usage.freeLimit : 0;
  const [filled, empty] = barCells(share, meter.bar);
  const reset = timeOfDayWords(usage.resetsAt);
  return (
    <Box flexDirection="column">
      <Box flexDirection={meter.beside ? 'row' : 'column'} columnGap={GAP}>
        <Prose>{counts}</Prose>
        <Box flexShrink={0}>
          <Paint color={usage.freeRemaining > 0 ? 'green' : 'red'}>{'█'.repeat(filled)}</Paint>
          <Paint dim>{'░'.repeat(empty)}</Paint>
        </Box>
      </Box>
      <Prose>{`Pass credits: ${usage.passCredits}`}</Prose>
      {/* It wraps between words, but "00:00 UTC" and "in 5 h 12 min." are one each: a number stays with its unit. */}
      <Box flexWrap="wrap" columnGap={1}>
        {words('The free allowance resets at', { dim: true })}
        <Paint dim>{`${reset.utc}${reset.local ? '' : ','}`}</Paint>
        {reset.local ? <Paint dim>{`(${reset.local} here),`}</Paint> : null}
        <Paint dim>{`in ${untilWords(usage.resetsAt, now)}.`}</Paint>
      </Box>
    </Box>
  );
}
