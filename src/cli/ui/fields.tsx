import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { textWidth } from './layout.js';
import { Prose } from './prose.js';

export interface Field {
  label: string;
  value: ReactNode;
}

/**
 * "Label: value" lines whose values start in one column, the widest label's; a value
 * too long for the line wraps under itself, not under the labels.
 */
export function Fields({ fields }: { fields: Field[] }) {
  const width = Math.max(...fields.map((field) => textWidth(field.label))) + 2;
  return (
    <Box flexDirection="column">
      {fields.map((field) => (
        <Box key={field.label}>
          <Box width={width} flexShrink={0}>
            <Text>{`${field.label}:`}</Text>
          </Box>
          <Box flexGrow={1} flexShrink={1} flexBasis={0}>
            {typeof field.value === 'string' ? <Prose>{field.value}</Prose> : field.value}
          </Box>
        </Box>
      ))}
    </Box>
  );
}
