import { Box } from 'ink';
import { Paint, type PaintProps } from './paint.js';

/**
 * A sentence that wraps at spaces, every line starting flush. ink's own wrapping
 * (wrap-ansi without trimming) starts a line with the space it broke at whenever the
 * line before filled the width exactly, which shifts that line one column right; here
 * each word is a box and ink's flex wrap breaks between them instead.
 */
export function Prose({ children, ...style }: Omit<PaintProps, 'children'> & { children: string }) {
  const words = children.split(' ').filter((word) => word !== '');
  return (
    <Box flexWrap="wrap" columnGap={1}>
      {words.map((word, i) => (
        <Paint key={i} {...style}>
          {word}
        </Paint>
      ))}
    </Box>
  );
}
