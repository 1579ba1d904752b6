/**
 * Progress of an evaluation. On a live terminal an ink bar with the time left
 * (ink is loaded only then); elsewhere, and with --json, a line on stderr at every
 * tenth, so logs stay short and stdout holds only the report.
 */
export interface Progress {
  update(done: number, failed: number): void;
  stop(): Promise<void>;
}

export async function evalProgress(total: number, options: { json: boolean }): Promise<Progress> {
  const interactive = Boolean(process.stdout.isTTY) && process.env.TERM !== 'dumb' && !options.json;
  if (interactive) {
    const { liveProgress } = await import('./ui/eval-view.js');
    return liveProgress(total);
  }
  let lastTenth = 0;
  return {
    update(done, failed) {
      const tenth = Math.floor((done / total) * 10);
      if (tenth === lastTenth) return;
      lastTenth = tenth;
      process.stderr.write(`decide: eval ${tenth * 10}% (${done} of ${total} decisions${failed ? `, ${failed} failed` : ''})\n`);
    },
    stop: async () => {},
  };
}
