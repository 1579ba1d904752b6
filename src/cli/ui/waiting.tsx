import { Box, Text, useInput, useStdin } from 'ink';
import Spinner from 'ink-spinner';
import { useColor } from './paint.js';

/**
 * The spinner shown while the service works (only on a live terminal). When the
 * keyboard is a terminal too, Ctrl-C is read here as a key (ink puts it in raw mode)
 * and handed to `onInterrupt`, so the command can take the spinner down and say what
 * became of the call, rather than die mid-frame.
 */
export function Waiting({ label, onInterrupt }: { label: string; onInterrupt?: () => void }) {
  const color = useColor();
  const { isRawModeSupported } = useStdin();
  useInput(
    (input, key) => {
      if (key.ctrl && input === 'c') onInterrupt?.();
    },
    { isActive: isRawModeSupported && onInterrupt !== undefined },
  );
  return (
    <Box>
      <Text color={color ? 'cyan' : undefined}>
        <Spinner type="dots" />
      </Text>
      <Text>{` ${label}`}</Text>
    </Box>
  );
}
