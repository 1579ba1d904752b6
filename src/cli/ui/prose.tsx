import { Box } from 'ink';
import type { ReactElement } from 'react';
import { Paint, type PaintProps } from './paint.js';

/**
 * A sentence that wraps at spaces, every line starting flush. ink's own wrapping
 * (wrap-ansi without trimming) starts a line with the space it broke at whenever the
 * line before filled the width exactly, which shifts that line one column right; here
 * each word is a box and ink's flex wrap breaks between them instead.
 */
export function Prose({ children, ...style }: PaintStyle & { children: string }) {
  return (
    <Box flexWrap="wrap" columnGap={1}>
      {words(children, style)}
    </Box>
  );
}

export type PaintStyle = Omit<PaintProps, 'children'>;

/** The words of `text`, each its own element, for a box that wraps (`flexWrap="wrap"`, `columnGap={1}`). */
export function words(text: string, style: PaintStyle = {}, key = ''): ReactElement[] {
  return text
    .split(' ')
    .filter((word) => word !== '')
    .map((word, i) => (
      <Paint key={`${key}${i}`} {...style}>
        {word}
      </Paint>
    ));
}
