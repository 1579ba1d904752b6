// The generated models' tokenizer: a small llama-style (SentencePiece) vocabulary made
// here, so that nothing outside the repository is needed to write a model. The
// weights are random, so the vocabulary only has to tokenise like a real one does:
// control and byte-fallback tokens where llama.cpp looks for them, a single token for
// every printable ASCII character (the letters the local engine reads its answers
// off, the digits), and common words, those of decide's own prompts first, as single
// tokens, so a prompt takes a realistic number of tokens (on the eval set, a third
// more than llama 2's 32,000-token vocabulary takes).
//
// llama.cpp's SentencePiece tokeniser merges adjacent pieces whose concatenation is a
// token, so a word becomes one token only when a chain of merges leads to it: each
// word brings every prefix of "▁word" with it ("▁", "▁d", "▁de", … "▁decide").
//
// The vocabulary is padded to the size of the model being imitated with tokens the
// tokeniser never produces: the output head, the logits and every per-vocabulary
// buffer of the runtime get the size they have with the real model.
import { entry, VALUE } from './format.js';

/** llama.cpp's token types. */
const TYPE = { normal: 1, unknown: 2, control: 3, unused: 5, byte: 6 };
/** SentencePiece's mark for a space (every word but the first of a text starts with it). */
const SPACE = '\u2581';

/** Words of decide's prompts (src/decision/prompts.ts, src/engine/local/prompt.ts), then common English. */
const WORDS = `
Question Text Reply with the letter of best answer to question Given text decide which options
answers this whether is yes or no levels Base decision on facts states Use general knowledge only
understand those not supply does give Does contain enough confidence one these from low high Answer
if so that careful reader would reach without guessing rest assumptions leaves out Judge are there
they point Yes No
a an and as at be but by can could do for had has have he her his how I in it its more most my new
not now of our over said she should some than their them then they time up us was we were what when
where who why will you your all any each every other such same very just also about after before
between into through during under again further once here both few many much own too well team
need needs use used uses run runs running make makes work works good better small large long short
first last next year years day days month months week people company service services data system
systems cost costs price budget risk risks plan plans option choice choose chosen move stay keep
build buy sell ship launch customer customers user users product products project time team's
must may might cannot can't don't doesn't isn't it's we're they're there's already still never
always often only two three four five six seven eight nine ten hundred thousand million per cent
database production billing transactions audit trail engineers share rotation managed infrastructure
strict multi row invoices reproducible traffic peaks end tables reports written finance single cloud
provider backups tested quarter launch date adopt context mode order days score free minutes volume
reaches supplier standard room item allows left carrier policy call takes office charges within
warehouse holds delivery storage total setup home station queue least approval second rate medium
lead offers freight hours slot slots expected model away take schedule priority paper night rates
offered deadline current covers cheapest capacity boxes book transport tasks package during track
limit late cache search lowest green express events requests afternoon times otherwise orders meets
payment field seats peak full fewer critical centre bulk bought backup alert urgency upload train
servers records goods store printed demand class quotes notes runs review release pallet pace
morning major headroom currently backlog above whose rule request printer minor hand building
affects account until stock asked working whole usual today shows purchasing notification needed
members meeting hour handle gateway files excess been space soon site sign shipment remaining open
measures load items guests drive crew wind trip monday tuesday wednesday thursday friday saturday
sunday ing ed es er ly tion ment ness able al ive ous s
`;

/** Pieces besides the words' chains: "▁" and each printable ASCII character, alone and after "▁". */
function basePieces() {
  const ascii = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i));
  return [SPACE, ...ascii, ...ascii.map((c) => SPACE + c)];
}

/**
 * The merge chains: every prefix of "▁word" and of "▁Word" of two characters or more,
 * for every word; then the same without "▁", so a word inside another ("base" in
 * "database") is a piece too. Those come last and rank lowest: a merge at the start
 * of a word is always taken before them, so they never split a word that has a chain.
 */
function wordPieces() {
  const words = WORDS.split(/\s+/).filter(Boolean);
  const chains = (prefix, minimum) =>
    words
      .flatMap((word) => [word, word[0].toUpperCase() + word.slice(1)])
      .flatMap((word) => {
        const piece = prefix + word;
        return Array.from({ length: Math.max(0, piece.length - minimum + 1) }, (_, i) => piece.slice(0, minimum + i));
      });
  return [...chains(SPACE, 3), ...chains('', 2)];
}

/**
 * The vocabulary: <unk>, <s>, </s>, the 256 byte tokens llama.cpp falls back to
 * (it looks up <0x0A> for a newline), then the pieces, each once.
 */
export function syntheticVocabulary() {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [TYPE.unknown, TYPE.control, TYPE.control];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(TYPE.byte);
  }
  for (const piece of new Set([...basePieces(), ...wordPieces()])) {
    tokens.push(piece);
    types.push(TYPE.normal);
  }
  return { tokens, types };
}

/**
 * The tokenizer's metadata entries, padded to `vocab` tokens when given, and the
 * vocabulary size. Scores rank the pieces in order, as SentencePiece's do: a merge
 * into a longer piece of a chain is the only merge on offer there, so the order
 * decides nothing between words.
 */
export function tokenizerMetadata(vocab) {
  const { tokens, types } = syntheticVocabulary();
  const have = tokens.length;
  if (vocab && vocab < have) throw new Error(`the vocabulary has ${have} tokens; cannot make it ${vocab}`);
  for (let i = have; i < (vocab ?? have); i++) {
    tokens.push(`<decide-bench-unused-${i}>`);
    types.push(TYPE.unused);
  }
  const scores = tokens.map((_, i) => (i < have ? -i : 0));
  return {
    vocab: tokens.length,
    tokens,
    entries: [
      entry('tokenizer.ggml.model', 'string', 'llama'),
      entry('tokenizer.ggml.tokens', 'array', { itemType: VALUE.string, items: tokens }),
      entry('tokenizer.ggml.scores', 'array', { itemType: VALUE.f32, items: scores }),
      entry('tokenizer.ggml.token_type', 'array', { itemType: VALUE.i32, items: types }),
      entry('tokenizer.ggml.bos_token_id', 'u32', 1),
      entry('tokenizer.ggml.eos_token_id', 'u32', 2),
      entry('tokenizer.ggml.unknown_token_id', 'u32', 0),
    ],
  };
}
