// The summary eval/generate.mjs prints: counts to review a regenerated set by.

/**
 * What eval/generate.mjs prints after writing the set: how its items spread over
 * modes, families, domains, answer places and levels, and the best shortcut of each
 * family against chance (src/eval/shortcuts.ts).
 */
export function printSummary(output, shownOut, shortcutBaselines) {
  const bases = output.filter((e) => !e.twin);
  const twins = output.length - bases.length;
  const generated = bases.filter((e) => e.family !== 'handwritten');
  const written = bases.filter((e) => e.family === 'handwritten');
  console.log(
    `Wrote ${shownOut}: ${output.length} items = ${bases.length} base (${generated.length} templated, ${written.length} hand-written) + ${twins} twins without their decisive fact.`,
  );
  const groups = [
    ['templated', generated],
    ['hand-written', written],
    ['all', bases],
  ];
  const table = (title, keyOf, keys) => {
    const counts = groups.map(([, entries]) => tally(entries, keyOf));
    const all = keys ?? [...new Set(counts.flatMap((c) => [...c.keys()]))].sort();
    console.log(`\n${title}`);
    console.log(`  ${''.padEnd(22)}${groups.map(([name]) => name.padStart(14)).join('')}`);
    for (const key of all) console.log(`  ${String(key).padEnd(22)}${counts.map((c) => String(c.get(key) ?? 0).padStart(14)).join('')}`);
  };
  table('Base items by mode', (e) => e.item.mode, ['choice', 'noul', 'score']);
  table('Base items by family', (e) => (e.family === 'handwritten' ? 'handwritten' : `${e.family} (${e.item.mode})`));
  table('Base items by domain', (e) => e.domain);
  const choice = (e) => e.item.mode === 'choice';
  table('Choice: correct option position (1-based) / option count', (e) =>
    choice(e) ? `${e.item.options.indexOf(e.item.answer) + 1} of ${e.item.options.length}` : undefined,
  );
  table(
    'Choice: correct option place',
    (e) => {
      if (!choice(e)) return undefined;
      const i = e.item.options.indexOf(e.item.answer);
      return i === 0 ? 'first' : i === e.item.options.length - 1 ? 'last' : 'middle';
    },
    ['first', 'middle', 'last'],
  );
  table('Noul answers', (e) => (e.item.mode === 'noul' ? String(e.item.answer) : undefined), ['true', 'false']);
  table('Score answers', (e) => (e.item.mode === 'score' ? ['low', 'middle', 'high'][e.item.levels.indexOf(e.item.answer)] : undefined), [
    'low',
    'middle',
    'high',
  ]);
  table('Base items with a decisive fact (so with a twin)', (e) => (e.item.decisiveFact !== undefined ? 'yes' : 'no'), ['yes', 'no']);
  // The best shortcut of each family (src/eval/shortcuts.ts): the set is fair where none beats chance by more than 0.05.
  const shown = (b) =>
    b ? `${b.best.rule} ${b.best.accuracy.toFixed(3)} vs ${b.chance.toFixed(3)}${b.best.accuracy > b.chance + 0.05 ? ' !' : ''}` : '-';
  console.log('\nBest shortcut per family against chance (! where it beats chance by more than 0.05)');
  console.log(`  ${''.padEnd(28)}${'complete'.padEnd(40)}twins`);
  for (const f of shortcutBaselines(output.map((e) => e.item)).families) {
    console.log(`  ${`${f.family} (${f.mode})`.padEnd(28)}${shown(f.complete).padEnd(40)}${shown(f.twins)}`);
  }
}

function tally(entries, keyOf) {
  const counts = new Map();
  for (const e of entries) {
    const key = keyOf(e);
    if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}
