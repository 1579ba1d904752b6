/**
 * A one-line progress bar on a terminal; on a pipe or log file, a line every tenth
 * of the way, so logs stay readable.
 */
export function progressPrinter(out: NodeJS.WriteStream): (received: number, total: number) => void {
  const started = Date.now();
  let resumedFrom: number | undefined;
  let lastDraw = 0;
  let lastTenth = -1;
  return (received, total) => {
    const fraction = Math.min(1, received / total);
    const mb = (n: number) => (n / 1e6).toFixed(0);
    resumedFrom ??= received;
    const speed = (received - resumedFrom) / 1e6 / Math.max(0.001, (Date.now() - started) / 1000);
    const text = `${(fraction * 100).toFixed(0).padStart(3)}%  ${mb(received)} / ${mb(total)} MB  ${speed.toFixed(1)} MB/s`;
    if (out.isTTY) {
      const now = Date.now();
      if (now - lastDraw < 100 && fraction < 1) return;
      lastDraw = now;
      const width = 30;
      const filled = Math.round(fraction * width);
      out.write(`\r  [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${text}${fraction === 1 ? '\n' : ''}`);
      return;
    }
    const tenth = Math.floor(fraction * 10);
    if (tenth === lastTenth) return;
    lastTenth = tenth;
    out.write(`decide: fetching the model: ${text}\n`);
  };
}
