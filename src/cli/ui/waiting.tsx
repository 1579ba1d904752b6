import { Box, Text, useInput, useStdin } from 'ink';
import { useEffect, useState } from 'react';
import type { Notice } from '../client-call.js';
import Spinner from 'ink-spinner';
import { useColor } from './paint.js';

/**
 * The spinner shown while the service works (only on a live terminal). When the
 * keyboard is a terminal too, Ctrl-C is read here as a key (ink puts it in raw mode)
 * and handed to `onInterrupt`, so the command can take the spinner down and say what
 * became of the call, rather than die mid-frame.
 */
export function Waiting({ label, notice, onInterrupt }: { label: string; notice?: Notice; onInterrupt?: () => void }) {
  const color = useColor();
  const seconds = useSecondsLeft(notice?.until);
  const { isRawModeSupported } = useStdin();
  useInput(
    (input, key) => {
      // Ctrl-C pressed twice before a read comes as one chunk, "\x03\x03", which ink parses as no key.
      if ((key.ctrl && input === 'c') || input.includes('\x03')) onInterrupt?.();
    },
    { isActive: isRawModeSupported && onInterrupt !== undefined },
  );
  return (
    <Box>
      <Text color={color ? 'cyan' : undefined}>
        <Spinner type="dots" />
      </Text>
      <Text>{` ${label}${notice ? ` ${notice.say(seconds)}` : ''}`}</Text>
    </Box>
  );
}

/** Whole seconds left until `until`, redrawn as they pass: a retry's wait counted down. */
function useSecondsLeft(until: number | undefined): number | undefined {
  const left = () => (until === undefined ? undefined : Math.max(0, Math.ceil((until - Date.now()) / 1000)));
  const [seconds, setSeconds] = useState(left);
  useEffect(() => {
    setSeconds(left());
    if (until === undefined) return;
    const timer = setInterval(() => setSeconds(left()), 200);
    return () => clearInterval(timer);
  }, [until]);
  return seconds;
}
