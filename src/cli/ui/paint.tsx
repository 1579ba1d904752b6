import { createContext, useContext, type ReactNode } from 'react';
import { Text } from 'ink';
import type { Tone } from './words.js';

/**
 * Whether styles may be used at all (a TTY without NO_COLOR). When not, every
 * component renders plain text: no colour, no bold, no escape codes, and whatever a
 * style would have said (the selected option, the pivot) is said in words instead.
 */
const ColorContext = createContext(false);

export function ColorScope({ color, children }: { color: boolean; children?: ReactNode }) {
  return <ColorContext.Provider value={color}>{children}</ColorContext.Provider>;
}

export const useColor = (): boolean => useContext(ColorContext);

const TONE_COLOR: Record<Tone, string> = { good: 'green', bad: 'red', doubt: 'yellow' };

export interface PaintProps {
  children: ReactNode;
  color?: string;
  tone?: Tone;
  bold?: boolean;
  dim?: boolean;
}

/** Text, styled only where colour is allowed. */
export function Paint({ children, color, tone, bold, dim }: PaintProps) {
  const enabled = useColor();
  if (!enabled) return <Text>{children}</Text>;
  return (
    <Text color={tone ? TONE_COLOR[tone] : color} bold={bold} dimColor={dim}>
      {children}
    </Text>
  );
}
