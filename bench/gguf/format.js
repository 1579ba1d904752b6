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

/**
 * Tensor types the generator writes: ggml's type id, values per block and bytes per
 * block (and the file type a model of that type declares). Q4_0 is an f16 scale and
 * 32 four-bit values; Q8_0 an f16 scale and 32 bytes.
 */
export const TENSOR_TYPE = {
  f32: { id: 0, blockValues: 1, blockBytes: 4 },
  f16: { id: 1, blockValues: 1, blockBytes: 2, fileType: 1 },
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
 * A metadata entry: `kind` is 'string', 'u32' or 'f32', or 'array' with `value`
 * { itemType, items } (items strings, i32 or f32).
 */
export const entry = (key, kind, value) => ({ key, kind, value });

function writeArray(out, { itemType, items }) {
  out.u32(VALUE.array).u32(itemType).u64(items.length);
  const write = { [VALUE.string]: out.string, [VALUE.i32]: out.i32, [VALUE.f32]: out.f32 }[itemType];
  if (!write) throw new Error(`arrays of GGUF type ${itemType} are not written`);
  for (const item of items) write(item);
}

/**
 * The header of a GGUF file: `metadata` holds entries made with `entry`; `tensors` are { name, dims, type } in data order. Returns the
 * header padded to the alignment, and each tensor's offset in the data section.
 */
export function encodeHeader(metadata, tensors) {
  const out = new Bytes();
  out.push(Buffer.from(MAGIC, 'latin1')).u32(VERSION).u64(tensors.length).u64(metadata.length);
  for (const m of metadata) {
    if (m.kind === 'array') writeArray(out.string(m.key), m.value);
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
