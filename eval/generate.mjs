#!/usr/bin/env node
// Generates eval/decisions.jsonl, the labelled set `decide eval` measures an engine's
// probabilities on (docs/eval.md). It holds:
//   - templated items (eval/templates/), drawn with a fixed seed so the file is
//     reproducible byte for byte and reviewable in diffs. They come in groups, contrast
//     sets that differ only in the decisive fact and whose answers are every class
//     once (eval/templates/index.mjs), so no shortcut that reads anything else can
//     beat chance on them; this script checks that it cannot;
//   - the hand-written items of eval/handwritten.jsonl, as they are;
//   - for every item with a decisive fact, a twin without that fact
//     (`sufficient: false`), cut out by the service's own code, so the twin is
//     exactly the request `decide eval` makes when it drops the fact.
// Items are shuffled (each twin right after its original), so any prefix is a fair
// sample for `decide eval --limit N`.
//
//   node eval/generate.mjs           write eval/decisions.jsonl and print a summary
//   node eval/generate.mjs --check   exit 1 if the file is not what this would write
//
// Needs the compiled project (dist/): run `npm run build` first.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { hash32, mulberry32, Rng } from './templates/kit.mjs';
import { FAMILIES } from './templates/index.mjs';
import { printSummary } from './summary.mjs';

const SEED = 20250611;
const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.join(HERE, 'decisions.jsonl');
const HANDWRITTEN = path.join(HERE, 'handwritten.jsonl');
const SHOWN_OUT = 'eval/decisions.jsonl';
const SHOWN_HANDWRITTEN = 'eval/handwritten.jsonl';
/** An item's fields, in the order they are written. */
const FIELDS = ['id', 'family', 'mode', 'question', 'context', 'options', 'levels', 'answer', 'decisiveFact', 'sufficient'];

function fail(message) {
  console.error(`eval/generate.mjs: ${message}`);
  process.exit(1);
}

const args = process.argv.slice(2);
if (args.some((a) => a !== '--check'))
  fail(`unknown argument ${args.find((a) => a !== '--check')}; usage: node eval/generate.mjs [--check]`);
const checkOnly = args.includes('--check');

// The twins must be cut exactly as the service cuts a fact, so this is the service's code;
// and what a shortcut reads is what the service's baselines read.
const { splitFacts, contextWithout } = await importDist('decision/facts.js');
const { credit, shortcutBaselines, shortcutReading } = await importDist('eval/shortcuts.js');
const { learnedCuts } = await importDist('eval/shortcuts/learned.js');
const { caseOf, numbersIn } = await importDist('eval/shortcuts/reading.js');

async function importDist(module) {
  try {
    return await import(`../dist/${module}`);
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND') {
      fail(`dist/${module} is missing or incomplete: build the project first with \`npm run build\` in the repository root`);
    }
    throw error;
  }
}

// ---- the items ------------------------------------------------------------------

/** Templated items, family by family and group by group, each with its family and where it came from. */
function templatedItems() {
  const items = [];
  for (const family of FAMILIES) {
    // A stream per family: changing one family leaves the others' items as they were.
    const rng = new Rng(hash32(`${SEED}:${family.name}`));
    let numbered = 0;
    family.groups.forEach((size, g) => {
      const where = `template ${family.name}, group ${g + 1}`;
      const made = family.make(rng, size, g);
      checkAnswers(family, made, size, where);
      const options = made.options && rng.shuffle(made.options);
      // One order for the whole group, the decisive fact after the first shared sentence
      // with a number in it: every member's first number is then the same.
      const shared = rng.shuffle(made.shared);
      const at = rng.int(shared.findIndex((s) => /\d/.test(s)) + 1, shared.length);
      const group = made.members.map(({ decisive, answer }) => {
        const id = `gen-${family.name}-${String(++numbered).padStart(2, '0')}`;
        const sentences = [...shared.slice(0, at), decisive, ...shared.slice(at)];
        checkSentences(sentences, decisive, `${where}, item "${id}"`);
        const item = {
          id,
          family: family.name,
          mode: family.mode,
          question: made.question,
          context: sentences.join(' '),
          options,
          levels: made.levels,
          answer,
          decisiveFact: decisive,
        };
        return { item, family: family.name, domain: family.domain, where: `template ${family.name}, item "${id}"` };
      });
      checkGroup(
        group.map((e) => e.item),
        where,
      );
      items.push(...group);
    });
    if (family.mode !== 'choice')
      checkDecisiveNumbers(
        family,
        items.filter((e) => e.family === family.name).map((e) => caseOf(e.item)),
      );
  }
  return items;
}

/**
 * The one number that moves within a group, alone. Each number of the decisive facts,
 * by its place in the sentence, thresholded as the shortcut baselines threshold a
 * number (cut points learned on the family's other items), must not beat chance by
 * more than 0.05: the ladder of the family's rungs (templates/kit.mjs) keeps it so.
 */
function checkDecisiveNumbers(family, cases) {
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
  const chance = mean(cases.map((c) => 1 / c.classes.length));
  const places = Math.max(...cases.map((c) => numbersIn(c.item.decisiveFact).length));
  for (let place = 0; place < places; place++) {
    const feature = (c) => numbersIn(c.item.decisiveFact)[place] ?? null;
    const accuracy = mean(
      cases.map((c, i) =>
        credit(
          c,
          learnedCuts(
            feature,
            c,
            cases.filter((_, j) => j !== i),
          ),
        ),
      ),
    );
    if (accuracy > chance + 0.05) {
      fail(
        `template ${family.name}: number ${place + 1} of the decisive facts tells the answer alone (${accuracy.toFixed(3)} against chance ${chance.toFixed(3)})`,
      );
    }
  }
}

/** A group's answers are every class once: each option, yes and no, or the three levels. */
function checkAnswers(family, made, size, where) {
  const classes = family.mode === 'choice' ? made.options : family.mode === 'noul' ? [true, false] : made.levels;
  if (family.mode === 'choice' && made.options.length !== size) fail(`${where}: options: ${made.options.length} instead of ${size}`);
  const answers = made.members.map((m) => m.answer);
  if (answers.length !== classes.length || !classes.every((c) => answers.includes(c))) {
    fail(`${where}: answers: the members answer ${JSON.stringify(answers)}, not each of ${JSON.stringify(classes)} once`);
  }
  if (new Set(made.members.map((m) => m.decisive)).size !== answers.length) fail(`${where}: decisiveFact: two members share one`);
}

/**
 * What makes a group a fair contrast set: without their decisive facts the members
 * are one and the same request (which therefore has several answers: the twins are
 * truly unanswerable), and every shortcut reads the same thing off each member.
 */
function checkGroup(group, where) {
  const twins = new Set(group.map((item) => twinOf(item).context));
  if (twins.size !== 1) fail(`${where}: the members differ in more than their decisive fact`);
  const readings = group.map((item) => JSON.stringify(shortcutReading(item)));
  const differs = readings.findIndex((r) => r !== readings[0]);
  if (differs >= 0)
    fail(
      `${where}: a shortcut tells "${group[differs].id}" from "${group[0].id}" without its decisive fact:\n  ${readings[0]}\n  ${readings[differs]}`,
    );
}

/**
 * A template's sentences must be exactly the facts the service finds: one fact per
 * sentence, none merged (so at most MAX_FACTS), none split by an abbreviation.
 */
function checkSentences(sentences, decisive, where) {
  for (const s of sentences) {
    if (!/^[A-Z].*\.$/.test(s) || /[\r\n]/.test(s))
      fail(`${where}: context: sentence "${s}" must start with a capital, end with a period and hold no line break`);
  }
  if (new Set(sentences).size !== sentences.length) fail(`${where}: context: a sentence is repeated`);
  if (!sentences.includes(decisive)) fail(`${where}: decisiveFact: not one of the template's sentences`);
  const found = splitFacts(sentences.join(' ')).map((f) => f.text);
  if (found.length !== sentences.length || found.some((text, i) => text !== sentences[i])) {
    const first = found.findIndex((text, i) => text !== sentences[i]);
    fail(
      `${where}: context: the service splits it differently from the template's sentences (first difference: "${found[first] ?? '(none)'}")`,
    );
  }
}

/** Hand-written items in file order; a missing file is an empty set (it may not exist yet). */
function handwrittenItems() {
  let text;
  try {
    text = fs.readFileSync(HANDWRITTEN, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    fail(`${SHOWN_HANDWRITTEN} cannot be read (${error.code ?? error.message})`);
  }
  const items = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    if (raw.trim() === '') return;
    const where = `${SHOWN_HANDWRITTEN}, line ${index + 1}`;
    let item;
    try {
      item = JSON.parse(raw);
    } catch (error) {
      fail(`${where}: not valid JSON (${error.message})`);
    }
    const domain = /^hw-([a-z]+)-/.exec(item?.id ?? '')?.[1] ?? '(none)';
    items.push({ item, family: 'handwritten', domain, where: `${where}, item "${item?.id}"` });
  });
  return items;
}

/** The twin of an item with a decisive fact: the same decision asked without it. */
function twinOf(item) {
  const fact = splitFacts(item.context).find((f) => f.text === item.decisiveFact);
  const { decisiveFact, ...rest } = item;
  void decisiveFact;
  return { ...rest, id: `${item.id}-nofact`, context: contextWithout(item.context, fact), sufficient: false };
}

// ---- validation -----------------------------------------------------------------

const codePoints = (s) => [...s.trim()].length;

/** Every rule of docs/eval.md's item format; the first violation stops the script. */
function validate(item, where) {
  const bad = (field, problem) => fail(`${where}: ${field}: ${problem}`);
  if (typeof item !== 'object' || item === null || Array.isArray(item)) bad('item', 'must be a JSON object');
  for (const key of Object.keys(item)) if (!FIELDS.includes(key)) bad(key, 'is not a field of an item');
  const text = (field, min, max, value = item[field]) => {
    if (typeof value !== 'string') bad(field, 'must be a string');
    const n = codePoints(value);
    if (n < min || n > max) bad(field, `must be ${min} to ${max} characters long after trimming (got ${n})`);
  };
  const distinct = (field, list) => {
    const seen = new Set();
    for (const s of list) {
      const folded = s.trim().toLowerCase();
      if (seen.has(folded)) bad(field, `must be distinct (case-insensitively); "${s}" repeats`);
      seen.add(folded);
    }
  };
  text('id', 1, 200);
  if (!['choice', 'noul', 'score'].includes(item.mode)) bad('mode', 'must be one of choice, noul, score');
  text('question', 8, 300);
  text('context', 20, 2000);
  if (item.mode === 'choice') {
    if (!Array.isArray(item.options) || item.options.length < 2 || item.options.length > 6) bad('options', 'must hold 2 to 6 options');
    item.options.forEach((o, i) => text(`options[${i}]`, 2, 100, o));
    distinct('options', item.options);
  } else if (item.options !== undefined) bad('options', `not allowed in mode ${item.mode}`);
  if (item.mode === 'score') {
    if (!Array.isArray(item.levels) || item.levels.length !== 3) bad('levels', 'must hold exactly 3 levels, low to high');
    item.levels.forEach((l, i) => text(`levels[${i}]`, 2, 100, l));
    distinct('levels', item.levels);
  } else if (item.levels !== undefined) bad('levels', `not allowed in mode ${item.mode}`);
  if (item.mode === 'noul') {
    if (typeof item.answer !== 'boolean') bad('answer', 'must be true or false');
  } else {
    const classes = item.mode === 'choice' ? item.options : item.levels;
    if (typeof item.answer !== 'string' || !classes.some((c) => c.trim() === item.answer.trim())) {
      bad('answer', `must be one of the ${item.mode === 'choice' ? 'options' : 'levels'}, spelled as there`);
    }
  }
  if (item.sufficient !== undefined && typeof item.sufficient !== 'boolean') bad('sufficient', 'must be true or false');
  if (item.family !== undefined) text('family', 1, 100);
  if (item.decisiveFact !== undefined) {
    text('decisiveFact', 1, 2000);
    if (item.sufficient === false) bad('decisiveFact', 'an item marked sufficient: false already lacks its deciding fact');
    const fact = splitFacts(item.context).find((f) => f.text === item.decisiveFact);
    if (!fact) bad('decisiveFact', 'must be one sentence (or list item) of context, copied exactly');
    if (codePoints(contextWithout(item.context, fact)) < 20) bad('decisiveFact', 'leaves fewer than 20 characters of context when cut out');
  }
}

// ---- assembling the file --------------------------------------------------------

const base = [...templatedItems(), ...handwrittenItems()];
for (const { item, where } of base) validate(item, where);

// Order by a seeded hash of the id: a seeded shuffle that keeps the items' relative
// order when hand-written items are added or removed.
const orderKey = (id) => mulberry32(hash32(`${SEED}:order:${id}`))();
const ordered = base
  .map((entry) => ({ ...entry, key: orderKey(entry.item.id) }))
  .sort((a, b) => a.key - b.key || (a.item.id < b.item.id ? -1 : 1));

const output = [];
for (const entry of ordered) {
  output.push(entry);
  if (entry.item.decisiveFact !== undefined) {
    const twin = twinOf(entry.item);
    const where = `${entry.where} (its twin "${twin.id}")`;
    validate(twin, where);
    output.push({ ...entry, item: twin, twin: true, where });
  }
}
const ids = new Map();
for (const { item, where } of output) {
  if (ids.has(item.id)) fail(`${where}: id: "${item.id}" is already the id of ${ids.get(item.id)}`);
  ids.set(item.id, where);
}

const serialize = (item) => JSON.stringify(Object.fromEntries(FIELDS.filter((f) => item[f] !== undefined).map((f) => [f, item[f]])));
const text = output.map(({ item }) => serialize(item)).join('\n') + '\n';

// The service's own parser has the last word, when this checkout has it.
const evalItem = await import('../dist/eval/item.js').catch((error) => {
  if (error?.code === 'ERR_MODULE_NOT_FOUND') return null;
  throw error;
});
if (evalItem?.parseSet) {
  try {
    evalItem.parseSet(text, SHOWN_OUT);
  } catch (error) {
    const line = /line (\d+)/.exec(error.message)?.[1];
    const id = line ? JSON.parse(text.split('\n')[Number(line) - 1]).id : '?';
    fail(`the service's parser refuses item "${id}": ${error.message}`);
  }
}

if (checkOnly) {
  const current = fs.existsSync(OUT) ? fs.readFileSync(OUT, 'utf8') : null;
  if (current !== text) fail(`${SHOWN_OUT} is stale: run \`node eval/generate.mjs\``);
  console.log(`${SHOWN_OUT} is up to date (${output.length} items).`);
  process.exit(0);
}

fs.writeFileSync(OUT, text);
printSummary(output, SHOWN_OUT, shortcutBaselines);
