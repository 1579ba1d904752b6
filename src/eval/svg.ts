import type { QualityFigures } from './report.js';

/**
 * A reliability diagram as a standalone SVG: per bin of the top answer's stated
 * probability, a bar as high as the share of answers that were right. A calibrated
 * engine's bars reach the diagonal; bars below it are overconfidence. Under the plot,
 * how many readings fell in each bin. Written by hand: the picture is two axes, a
 * line and fifteen bars, less code than wiring a charting library into a string.
 */

const WIDTH = 520;
const PLOT = { left: 64, top: 48, size: 380 };
const HISTOGRAM = { gap: 22, height: 60 };
const HEIGHT = PLOT.top + PLOT.size + HISTOGRAM.gap + HISTOGRAM.height + 44;

export function reliabilitySvg(title: string, figures: QualityFigures): string {
  const x = (v: number) => PLOT.left + v * PLOT.size;
  const y = (v: number) => PLOT.top + (1 - v) * PLOT.size;
  const baseline = PLOT.top + PLOT.size;
  const histTop = baseline + HISTOGRAM.gap;
  const most = Math.max(1, ...figures.reliability.map((b) => b.n));
  const parts: string[] = [];

  parts.push(`<rect x="${PLOT.left}" y="${PLOT.top}" width="${PLOT.size}" height="${PLOT.size}" fill="#fafafa" stroke="#999"/>`);
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${x(t)}" y1="${baseline}" x2="${x(t)}" y2="${baseline + 5}" stroke="#999"/>`);
    parts.push(`<text x="${x(t)}" y="${histTop + HISTOGRAM.height + 16}" text-anchor="middle">${t}</text>`);
    parts.push(`<line x1="${PLOT.left - 5}" y1="${y(t)}" x2="${PLOT.left}" y2="${y(t)}" stroke="#999"/>`);
    parts.push(`<text x="${PLOT.left - 8}" y="${y(t) + 4}" text-anchor="end">${t}</text>`);
  }
  for (const bin of figures.reliability) {
    if (bin.n === 0 || bin.accuracy === null || bin.confidence === null) continue;
    const left = x(bin.from) + 1;
    const width = x(bin.to) - x(bin.from) - 2;
    const under = bin.accuracy < bin.confidence;
    parts.push(
      `<rect x="${left}" y="${y(bin.accuracy)}" width="${width}" height="${baseline - y(bin.accuracy)}" fill="${under ? '#d9534f' : '#3a7bd5'}" fill-opacity="0.75">` +
        `<title>${bin.from.toFixed(2)}–${bin.to.toFixed(2)}: ${bin.n} readings, stated ${pct(bin.confidence)}, right ${pct(bin.accuracy)}</title></rect>`,
    );
    const barHeight = (bin.n / most) * HISTOGRAM.height;
    parts.push(`<rect x="${left}" y="${histTop + HISTOGRAM.height - barHeight}" width="${width}" height="${barHeight}" fill="#777"/>`);
  }
  parts.push(`<line x1="${x(0)}" y1="${y(0)}" x2="${x(1)}" y2="${y(1)}" stroke="#222" stroke-dasharray="6 4"/>`);
  parts.push(`<text transform="translate(${x(0.1)} ${y(0.12)}) rotate(-45)" fill="#222">calibrated</text>`);
  parts.push(`<rect x="${PLOT.left + 6}" y="${PLOT.top + 8}" width="10" height="10" fill="#3a7bd5" fill-opacity="0.75"/>`);
  parts.push(`<text x="${PLOT.left + 20}" y="${PLOT.top + 17}">right at least as often as stated</text>`);
  parts.push(`<rect x="${PLOT.left + 6}" y="${PLOT.top + 24}" width="10" height="10" fill="#d9534f" fill-opacity="0.75"/>`);
  parts.push(`<text x="${PLOT.left + 20}" y="${PLOT.top + 33}">right less often than stated (overconfident)</text>`);

  const summary = `n = ${figures.n}, accuracy ${fmt(figures.accuracy)}, ECE ${fmt(figures.ece)}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${PLOT.left}" y="20" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    `<text x="${PLOT.left}" y="38" fill="#444">${summary}</text>`,
    ...parts,
    `<text x="${PLOT.left + PLOT.size / 2}" y="${HEIGHT - 6}" text-anchor="middle">stated probability of the top answer</text>`,
    `<text transform="translate(16 ${PLOT.top + PLOT.size / 2}) rotate(-90)" text-anchor="middle">share right</text>`,
    `<text transform="translate(${PLOT.left + PLOT.size + 18} ${histTop + HISTOGRAM.height / 2}) rotate(-90)" text-anchor="middle" fill="#777">readings</text>`,
    '</svg>',
    '',
  ].join('\n');
}

const pct = (v: number) => `${(v * 100).toFixed(1)} %`;
const fmt = (v: number | null) => (v === null ? '–' : v.toFixed(3));

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}
