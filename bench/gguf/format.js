// The GGUF container, as much of it as the bench's model generator needs: the
// header, typed key/value metadata, tensor descriptions, and the alignment of the
// data that follows. Little-endian throughout; version 3 (64-bit counts and lengths).
//
// Layout: "GGUF" magic, u32 version, u64 tensor count, u64 metadata count, the
// metadata entries (string key, u32 value type, value), the tensor infos (string
// name, u32 dimension count, u64 per dimension with the innermost first, u32 ggml
// type, u64 offset into the data section), padding to the alignment, then the data,
// each tensor starting at an aligned offset.

export const MAGIC = 'GGUF';
export const VERSION = 3;
/** llama.cpp's default when the metadata sets no general.alignment. */
export const ALIGNMENT = 32;

/** Metadata value types. */
export const VALUE = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, string: 8, array: 9, u64: 10, i64: 11, f64: 12 };
const FIXED_SIZE = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };

/**
 * Tensor types the generator writes: ggml's type id, values per block and bytes per
 * block. Q4_0 is an f16 scale and 32 four-bit values; Q8_0 an f16 scale and 32 bytes.
 */
export const TENSOR_TYPE = {
  f32: { id: 0, blockValues: 1, blockBytes: 4 },
  q4_0: { id: 2, blockValues: 32, blockBytes: 18, fileType: 2 },
  q8_0: { id: 8, blockValues: 32, blockBytes: 34, fileType: 7 },
};

/** Bytes of a tensor of `type` with dimensions `dims` (innermost first). */
export function tensorBytes(type, dims) {
  const [inner, ...outer] = dims;
  if (inner % type.blockValues !== 0) throw new Error(`a row of ${inner} values is not a whole number of ${type.blockValues}-value blocks`);
  return (inner / type.blockValues) * type.blockBytes * outer.reduce((a, b) => a * b, 1);
}

export const align = (n, to = ALIGNMENT) => Math.ceil(n / to) * to;

/**
 * The metadata entries of a GGUF file, each kept as its raw bytes beside its key, so
 * entries can be copied into another file unchanged whatever their type: the
 * generator takes the tokenizer from the tiny model this way.
 */
export function readMetadata(buf) {
  if (buf.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a GGUF file (no GGUF magic)');
  const version = buf.readUInt32LE(4);
  if (version !== VERSION) throw new Error(`GGUF version ${version}; only version ${VERSION} is read`);
  const count = Number(buf.readBigUInt64LE(16));
  let at = 24;
  const entries = [];
  for (let i = 0; i < count; i++) {
    const start = at;
    const keyLength = Number(buf.readBigUInt64LE(at));
    const key = buf.toString('utf8', at + 8, at + 8 + keyLength);
    at += 8 + keyLength;
    const type = buf.readUInt32LE(at);
    at = skipValue(buf, at + 4, type);
    entries.push({ key, raw: buf.subarray(start, at) });
  }
  return entries;
}

/** The items of a raw array entry from `readMetadata` whose items are strings, i32 or f32. */
export function readArray(raw) {
  let at = 8 + Number(raw.readBigUInt64LE(0));
  if (raw.readUInt32LE(at) !== VALUE.array) throw new Error('not an array entry');
  const itemType = raw.readUInt32LE(at + 4);
  const n = Number(raw.readBigUInt64LE(at + 8));
  at += 16;
  const items = [];
  for (let i = 0; i < n; i++) {
    if (itemType === VALUE.string) {
      const length = Number(raw.readBigUInt64LE(at));
      items.push(raw.toString('utf8', at + 8, at + 8 + length));
      at += 8 + length;
    } else if (itemType === VALUE.i32) items.push(raw.readInt32LE((at += 4) - 4));
    else if (itemType === VALUE.f32) items.push(raw.readFloatLE((at += 4) - 4));
    else throw new Error(`arrays of GGUF type ${itemType} are not read`);
  }
  return { itemType, items };
}

function skipValue(buf, at, type) {
  if (type === VALUE.string) return at + 8 + Number(buf.readBigUInt64LE(at));
  if (type === VALUE.array) {
    const itemType = buf.readUInt32LE(at);
    const n = Number(buf.readBigUInt64LE(at + 4));
    at += 12;
    if (itemType in FIXED_SIZE) return at + n * FIXED_SIZE[itemType];
    for (let i = 0; i < n; i++) at = skipValue(buf, at, itemType);
    return at;
  }
  if (type in FIXED_SIZE) return at + FIXED_SIZE[type];
  throw new Error(`unknown GGUF value type ${type}`);
}

/** Builds the bytes of a GGUF header piece by piece. */
class Bytes {
  chunks = [];
  length = 0;
  push(chunk) {
    this.chunks.push(chunk);
    this.length += chunk.length;
    return this;
  }
  fixed(size, write) {
    const b = Buffer.alloc(size);
    write(b);
    return this.push(b);
  }
  u32 = (v) => this.fixed(4, (b) => b.writeUInt32LE(v));
  u64 = (v) => this.fixed(8, (b) => b.writeBigUInt64LE(BigInt(v)));
  i32 = (v) => this.fixed(4, (b) => b.writeInt32LE(v));
  f32 = (v) => this.fixed(4, (b) => b.writeFloatLE(v));
  string = (s) => {
    const bytes = Buffer.from(s, 'utf8');
    return this.u64(bytes.length).push(bytes);
  };
}

/**
 * A metadata entry of our own: `kind` is 'string', 'u32' or 'f32', or 'array' with
 * `value` { itemType, items } as `readArray` returns it.
 */
export const entry = (key, kind, value) => ({ key, kind, value });

function writeArray(out, { itemType, items }) {
  out.u32(VALUE.array).u32(itemType).u64(items.length);
  const write = { [VALUE.string]: out.string, [VALUE.i32]: out.i32, [VALUE.f32]: out.f32 }[itemType];
  if (!write) throw new Error(`arrays of GGUF type ${itemType} are not written`);
  for (const item of items) write(item);
}

/**
 * The header of a GGUF file: `metadata` holds entries made with `entry` or raw ones
 * from `readMetadata`; `tensors` are { name, dims, type } in data order. Returns the
 * header padded to the alignment, and each tensor's offset in the data section.
 */
export function encodeHeader(metadata, tensors) {
  const out = new Bytes();
  out.push(Buffer.from(MAGIC, 'latin1')).u32(VERSION).u64(tensors.length).u64(metadata.length);
  for (const m of metadata) {
    if (m.raw) out.push(m.raw);
    else if (m.kind === 'array') writeArray(out.string(m.key), m.value);
    else out.string(m.key).u32(VALUE[m.kind])[m.kind](m.value);
  }
  const offsets = [];
  let offset = 0;
  for (const t of tensors) {
    out.string(t.name).u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(t.type.id).u64(offset);
    offsets.push(offset);
    offset = align(offset + tensorBytes(t.type, t.dims));
  }
  out.push(Buffer.alloc(align(out.length) - out.length));
  return { header: Buffer.concat(out.chunks), offsets, dataBytes: offset };
}
