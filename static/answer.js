// Draws a DecisionResponse on the pass page: one bar per option or level (or yes and
// no), the signal and the context sufficiency in words, and for a stress test the
// overall verdict, the checks and the fact the answer hangs on. The words are the
// CLI's: window.decideWording, which the server writes from contract/wording.ts and
// loads first. Loaded before app.js, which calls it.
'use strict';

(() => {
  const words = window.decideWording;
  const pct = (p) => `${(p * 100).toFixed(1)}%`;

  /**
   * The shares of one answer in tenths of a per cent that add up to exactly 1000
   * (100.0%): each gets its quota rounded down, and the tenths left over go to the
   * largest remainders (ties to the larger share, then to the earlier row). The
   * service's probabilities have 4 decimals, so the arithmetic is on whole numbers.
   */
  function tenths(ps) {
    const units = ps.map((p) => Math.round(p * 1e4));
    const total = units.reduce((a, b) => a + b, 0) || 1;
    const shares = units.map((u, i) => ({ i, u, floor: Math.floor((u * 1000) / total), rest: (u * 1000) % total }));
    let left = 1000 - shares.reduce((a, s) => a + s.floor, 0);
    for (const s of [...shares].sort((a, b) => b.rest - a.rest || b.u - a.u || a.i - b.i)) {
      if (left-- <= 0) break;
      s.floor += 1;
    }
    return shares.map((s) => s.floor);
  }
  const shown = (t) => `${Math.floor(t / 10)}.${t % 10}%`;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /** One row per option, level, or Yes/No, in the order of the answer; `top` marks the answer it points to. */
  function rowsOf(result) {
    if ('yesProbability' in result) {
      const yes = result.yesProbability;
      return [
        { label: 'Yes', p: yes, top: yes >= 0.5 },
        { label: 'No', p: Math.round((1 - yes) * 1e4) / 1e4, top: yes < 0.5 },
      ];
    }
    const best = words.leadingAnswer(result);
    return Object.entries(result.probabilities).map(([label, p]) => ({ label, p, top: label === best }));
  }

  const topOf = (result) => rowsOf(result).find((row) => row.top)?.label ?? '';

  function bars(result) {
    const list = el('div', 'bars');
    const rows = rowsOf(result);
    const parts = tenths(rows.map((row) => row.p));
    rows.forEach((row, i) => {
      const line = el('div', row.top ? 'bar-row top' : 'bar-row');
      line.append(el('span', 'bar-label', row.label));
      const bar = el('span', 'bar');
      const fill = el('span', 'fill');
      fill.style.width = shown(parts[i]); // CSSOM, which the CSP allows (inline style attributes it does not)
      bar.append(fill);
      line.append(bar, el('span', 'bar-value', shown(parts[i])));
      list.append(line);
    });
    return list;
  }

  function stressPart(stress) {
    const part = el('div', 'stress');
    part.append(el('h3', '', words.stressHeadline(stress)));
    // On a phone the table stacks, each cell labelled by its column (data-label, app.css).
    const titles = ['Check', 'Answer', 'Agrees', 'Shift'];
    const table = el('table', 'checks stack');
    const head = el('tr');
    for (const title of titles) {
      const th = el('th', '', title);
      th.scope = 'col';
      head.append(th);
    }
    table.append(el('thead'), el('tbody'));
    table.tHead.append(head);
    for (const check of stress.checks) {
      const row = el('tr', check.agrees ? '' : 'disagrees');
      const what = check.kind === 'reversed' ? words.checkLabel(check) : `${words.checkLabel(check)}: ${check.fact}`;
      [what, topOf(check.result), check.agrees ? 'yes' : 'no', pct(check.shift)].forEach((text, i) => {
        const cell = el('td', '', text);
        cell.dataset.label = titles[i];
        row.append(cell);
      });
      table.tBodies[0].append(row);
    }
    part.append(table);
    if (stress.pivot) {
      const { factIndex, fact, shift } = stress.pivot;
      const pivot = el('p', 'pivot');
      pivot.append(el('strong', '', `${words.PIVOT_NAME} ${factIndex + 1}: `));
      pivot.append(el('q', '', fact), document.createTextNode(` ${words.pivotWords(stress.pivot, pct(shift))}`));
      part.append(pivot);
    } else {
      part.append(el('p', 'muted', words.noPivotWords(stress.checks)));
    }
    return part;
  }

  window.decideRender = (response) => {
    const box = document.getElementById('answer');
    box.replaceChildren();
    const heading = el('h3', '', response.question);
    heading.tabIndex = -1; // the form moves the focus here once the answer is drawn
    box.append(heading);
    const signal = el('p', 'signal');
    signal.append(
      el('span', `badge signal-${response.signal}`, words.SIGNAL_NAMES[response.signal]),
      document.createTextNode(` ${words.signalMeaning(response.signal, response.result, response.labelMass)}`),
    );
    box.append(signal);
    // A stress test's one-line verdict, before the detail it sums up.
    const verdict = words.verdictOf(response);
    if (verdict) {
      const line = el('p', 'verdict');
      line.append(
        el('strong', '', 'Verdict: '),
        el('span', `badge tone-${words.VERDICTS[verdict.verdict].tone}`, words.VERDICTS[verdict.verdict].words),
        document.createTextNode(` (${verdict.reason})`),
      );
      box.append(line);
    }
    box.append(bars(response.result));
    const s = response.contextSufficiency;
    box.append(el('p', 'sufficiency', `Context: ${words.sufficiencyWords(s)}`));
    if (response.stress) box.append(stressPart(response.stress));
    const counted = (n, one, many) => `${n} ${n === 1 ? one : many}`;
    const access = response.access.type === 'free'
      ? `Free: ${counted(response.access.freeRemaining, 'decision', 'decisions')} left today for this key.`
      : `Paid by the pass: ${counted(response.access.passCredits, 'credit', 'credits')} left.`;
    box.append(el('p', 'muted', `${access} Model ${response.model}, ${response.timing.processingMs} ms.`));
    box.hidden = false;
    box.scrollIntoView({ block: 'nearest' });
  };
})();
