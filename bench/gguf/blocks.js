// Tensor data for the generated models: quantised blocks of random values with
// scales of a trained model's order of magnitude. The values mean nothing, but
// llama.cpp does exactly the work of a real model of the same shape on them; the
// scales keep activations finite through every layer, so the probabilities that come
// out are ordinary numbers, not NaN.
//
// A seeded generator makes the same file on every machine: the bench compares like
// with like, and a cached file can be made again byte for byte.

/** Standard deviation of the weights, as in a freshly initialised transformer. */
const WEIGHT_STD = 0.02;

/** xorshift32: fast, seedable, plenty for filler bytes. */
export function random(seed) {
  let x = seed >>> 0 || 0x9e3779b9;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}

/** An IEEE half of a normal float (all the scales and f16 weights here are). */
export function toHalf(x) {
  const f = new Float32Array([Math.abs(x)]);
  const bits = new Uint32Array(f.buffer)[0];
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  if (exponent <= 0 || exponent >= 31) throw new Error(`${x} is outside the range of normal halves`);
  return (x < 0 ? 0x8000 : 0) | (exponent << 10) | ((bits >>> 13) & 0x3ff);
}

/**
 * Sixteen scales around the one that gives quantised values of standard deviation
 * `std`: `spread` is the standard deviation of the block's integer values (uniform
 * four-bit values less 8 for Q4_0, uniform bytes for Q8_0).
 */
function scaleTable(spread, std) {
  return Array.from({ length: 16 }, (_, i) => toHalf((std / spread) * (0.5 + i / 15)));
}
/** 256 f16 weights evenly spread on ±√3·std, a uniform distribution of standard deviation `std`. */
function halfTable(std) {
  return Array.from({ length: 256 }, (_, i) => toHalf(std * Math.sqrt(3) * ((2 * i + 1) / 256 - 1)));
}
const tables = new Map();
function tablesFor(std) {
  if (!tables.has(std)) tables.set(std, { q4_0: scaleTable(4.61, std), q8_0: scaleTable(73.9, std), f16: halfTable(std) });
  return tables.get(std);
}

/**
 * Fills `buf` (a whole number of blocks of `type`) with random blocks: random bytes,
 * then each block's leading f16 scale taken from the table by bits of its own bytes.
 * F16 tensors are weights drawn from the table of halves. F32 tensors here are the
 * norms' weights, and a trained norm's weights sit near 1. `std` is the weights'
 * standard deviation (`WEIGHT_STD` unless the shape says otherwise).
 */
export function fillBlocks(buf, typeName, type, next, std = WEIGHT_STD) {
  if (typeName === 'f32') {
    new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4).fill(1);
    return;
  }
  if (typeName === 'f16') {
    const halves = tablesFor(std).f16;
    for (let at = 0; at < buf.length; at += 2) buf.writeUInt16LE(halves[next() & 0xff], at);
    return;
  }
  const words = new Uint32Array(buf.buffer, buf.byteOffset, buf.length >>> 2);
  for (let i = 0; i < words.length; i++) words[i] = next();
  for (let i = words.length * 4; i < buf.length; i++) buf[i] = next() & 0xff;
  const scales = tablesFor(std)[typeName];
  for (let at = 0; at < buf.length; at += type.blockBytes) buf.writeUInt16LE(scales[buf[at + 2] & 15], at);
}
