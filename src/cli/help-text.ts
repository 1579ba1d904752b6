import type { AddHelpTextContext } from 'commander';

/**
 * Text after a command's help (exit codes, notes), wrapped the way commander wraps
 * the options above it: at the width help is printed at (the terminal's, 80 on a
 * pipe), a list's descriptions hanging under each other. Written as paragraphs and
 * lists, never broken by hand, so no line outgrows a narrow terminal.
 */

/** A list under a heading: a term (an exit code, say) and what it means. */
export interface HelpList {
  heading: string;
  items: ReadonlyArray<readonly [term: string | number, text: string]>;
}

/** Command lines to copy, one a line, never wrapped: each is written to fit 80 columns. */
export interface HelpExamples {
  examples: readonly string[];
}

/** `Examples:` and the command lines, for the top of a command's epilog. */
export const examples = (...lines: string[]): HelpExamples => ({ examples: lines });

/** A paragraph (one string, wrapped at spaces), a list, or examples. */
export type HelpBlock = string | HelpList | HelpExamples;

/** For `addHelpText('after', …)`: the blocks, a blank line before each. */
export function helpText(...blocks: HelpBlock[]): (context: AddHelpTextContext) => string {
  return ({ error, command }) => {
    const output = command.configureOutput();
    const helper = command.createHelp();
    helper.prepareContext({ error, helpWidth: error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.() });
    const width = helper.helpWidth ?? 80;
    const formatted = blocks.map((block) => {
      if (typeof block === 'string') return helper.boxWrap(block, width);
      if ('examples' in block) return [helper.styleTitle('Examples:'), ...block.examples.map((line) => `  ${line}`)].join('\n');
      // Codes right-aligned, so 2 and 70 end in one column.
      const termWidth = Math.max(...block.items.map(([term]) => String(term).length));
      const items = block.items.map(([term, text]) => helper.formatItem(String(term).padStart(termWidth), termWidth, text, helper));
      return [helper.styleTitle(block.heading), ...items].join('\n');
    });
    return formatted.map((text) => `\n${text}`).join('\n');
  };
}
