import { Box, Text } from 'ink';
import Spinner from 'ink-spinner';
import { useColor } from './paint.js';

/** The spinner shown while the service works (only on a live terminal). */
export function Waiting({ label }: { label: string }) {
  const color = useColor();
  return (
    <Box>
      <Text color={color ? 'cyan' : undefined}>
        <Spinner type="dots" />
      </Text>
      <Text>{` ${label}`}</Text>
    </Box>
  );
}
