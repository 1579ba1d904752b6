import { setTimeout as sleep } from 'node:timers/promises';
import { type Instance, render, renderToString } from 'ink';
import type { ReactElement } from 'react';
import type { DecisionResponse, Usage } from '../../contract/index.js';
import type { Notice } from '../client-call.js';
import { DecisionView } from './decision-view.js';
import { ColorScope } from './paint.js';
import { UsageView } from './usage-view.js';
import { Waiting } from './waiting.js';

/**
 * The human output of the client commands. This module (and with it ink and React) is
 * imported only when a command prints for people: never for `--json`, `serve` or the
 * operator commands.
 */

export interface Terminal {
  /** A live terminal: a spinner while waiting, then the answer where it stood. */
  interactive: boolean;
  /** Colours and styles allowed (https://no-color.org: NO_COLOR set and not empty turns them off). */
  color: boolean;
  columns: number;
}

export function terminalOf(stream: NodeJS.WriteStream = process.stdout, env: NodeJS.ProcessEnv = process.env): Terminal {
  const interactive = Boolean(stream.isTTY) && env.TERM !== 'dumb';
  // A pipe or a file has no width: 80 columns, the width every reader of text handles.
  return { interactive, color: interactive && !env.NO_COLOR, columns: stream.columns || 80 };
}

export interface Presentation<T> {
  terminal: Terminal;
  /** What the spinner says while `work` runs. */
  label: string;
  /** The call; `notify` tells the user about a retry (beside the spinner, counting down, or on stderr). */
  work: (notify: (notice: Notice) => void) => Promise<T>;
  /** The result, laid out for the terminal's width. */
  view: (value: T, columns: number) => ReactElement;
  /** Ctrl-C typed while the spinner shows (the keyboard read as keys then, so no SIGINT comes). */
  onInterrupt?: () => void;
}

/** Longer than ink's 33 ms between frames: by then the last frame asked for is drawn. */
const FRAME_SETTLE_MS = 50;

/**
 * Runs `work` and shows its result. On a live terminal ink draws a spinner while it
 * runs; the result is then printed once, as plain lines that scroll like any command's
 * output. It is not drawn in the live ink session: a frame as tall as the window makes
 * ink clear the screen and the scrollback, and leaves the last line without its newline.
 * Elsewhere (a pipe, a file, TERM=dumb) there is no spinner and no escape code.
 */
export async function present<T>({ terminal, label, work, view, onInterrupt }: Presentation<T>): Promise<T> {
  const scoped = (node: ReactElement) => <ColorScope color={terminal.color}>{node}</ColorScope>;
  let value: T;
  if (!terminal.interactive) {
    value = await work((notice) => process.stderr.write(`decide: ${notice.say()}\n`));
  } else {
    const waiting = (notice?: Notice) => scoped(<Waiting label={label} notice={notice} onInterrupt={onInterrupt} />);
    const app = render(waiting(), { patchConsole: false, exitOnCtrlC: false });
    try {
      value = await work((notice) => app.rerender(waiting(notice)));
    } finally {
      await takeDown(app);
    }
  }
  // The width now, not when the spinner started: the window may have been resized.
  const columns = (terminal.interactive && process.stdout.columns) || terminal.columns;
  process.stdout.write(`${renderToString(scoped(view(value, columns)), { columns })}\n`);
  return value;
}

/**
 * Ends the live session and takes the spinner off the screen, and the line it stood
 * on with it, so what comes next (the answer, or an error on stderr) takes its place.
 * ink draws even an empty frame as a line; clear() erases what it drew, once the empty
 * frame has landed (ink draws at most every 33 ms). The unmount then finds nothing new
 * to draw.
 */
async function takeDown(app: Instance): Promise<void> {
  app.rerender(null);
  await sleep(FRAME_SETTLE_MS);
  app.clear();
  app.unmount();
  await app.waitUntilExit();
}

/** A view printed once, laid out at the terminal's width (80 columns on a pipe or a file), coloured only on a terminal. */
export function printView(view: (columns: number) => ReactElement, terminal: Terminal = terminalOf()): void {
  const { columns, color } = terminal;
  process.stdout.write(`${renderToString(<ColorScope color={color}>{view(columns)}</ColorScope>, { columns })}\n`);
}

export const decisionView = (response: DecisionResponse, columns: number) => <DecisionView response={response} columns={columns} />;
export const usageView = (usage: Usage, columns: number) => <UsageView usage={usage} columns={columns} />;
