import { Box, Text } from 'ink';
import type { Usage } from '../../contract/index.js';
import { Paint } from './paint.js';
import { barCells, untilWords } from './words.js';

const WIDTH = 20;

/** Today's free allowance as a bar, and the pass's credits. */
export function UsageView({ usage, now }: { usage: Usage; now?: number }) {
  const share = usage.freeLimit > 0 ? usage.freeRemaining / usage.freeLimit : 0;
  const [filled, empty] = barCells(share, WIDTH);
  return (
    <Box flexDirection="column">
      <Box>
        <Text>{`Free decisions today (${usage.day}): ${usage.freeRemaining} of ${usage.freeLimit} left  `}</Text>
        <Paint color={usage.freeRemaining > 0 ? 'green' : 'red'}>{'█'.repeat(filled)}</Paint>
        <Paint dim>{'░'.repeat(empty)}</Paint>
      </Box>
      <Text>{`Pass credits: ${usage.passCredits}`}</Text>
      <Paint dim>{`The free allowance resets at ${usage.resetsAt} (in ${untilWords(usage.resetsAt, now)}).`}</Paint>
    </Box>
  );
}
