/**
 * Reading an import file as a stream of its top-level values and of the items
 * of its section arrays, each as its own JSON text, so that a file is never
 * held whole: neither its text nor its parsed object graph. The bytes come in
 * chunks (`ReadBytes`); only the value being read is kept. The scanner checks
 * the file's outline (the top object, its keys, the section arrays and the
 * commas between items); each value's own text is checked by JSON.parse
 * where it is used. Anything it does not accept ends the stream as
 * "malformed", and the caller reads the file whole for the exact message.
 */

/** Fills `into` from `offset` with at most `length` bytes; how many it wrote, 0 at the end of the file. */
export type ReadBytes = (into: Uint8Array, offset: number, length: number) => number

export type FileEvent =
  /** A top-level key whose value is not read item by item, with that value's JSON text. */
  | { readonly kind: "value"; readonly key: string; readonly text: string }
  /** Item `index` of the array of top-level key `key`, as JSON text. */
  | { readonly kind: "item"; readonly key: string; readonly index: number; readonly text: string }

const InitialBuffer = 1 << 20
const Quote = 34
const Backslash = 92

interface TextDecoderLike {
  decode(bytes: Uint8Array): string
}
const utf8: TextDecoderLike = new (
  globalThis as unknown as {
    readonly TextDecoder: new (label: string, options: { ignoreBOM: boolean }) => TextDecoderLike
  }
).TextDecoder("utf-8", { ignoreBOM: true })

/** A window on the file's bytes: from `mark` (the value being read), or from `pos`, to `len`. */
class Bytes {
  buf = new Uint8Array(InitialBuffer)
  len = 0
  pos = 0
  mark = -1
  private ended = false
  private readonly read: ReadBytes
  constructor(read: ReadBytes) {
    this.read = read
  }

  /** Whether a byte is at `pos`, reading more when needed; false at the end of the file. */
  more(): boolean {
    if (this.pos < this.len) return true
    if (this.ended) return false
    const keep = this.mark < 0 ? this.len : this.mark
    if (keep > 0) {
      this.buf.copyWithin(0, keep, this.len)
      this.len -= keep
      this.pos -= keep
      if (this.mark >= 0) this.mark = 0
    }
    if (this.len === this.buf.length) {
      const bigger = new Uint8Array(this.buf.length * 2)
      bigger.set(this.buf)
      this.buf = bigger
    }
    const n = this.read(this.buf, this.len, this.buf.length - this.len)
    if (n <= 0) {
      this.ended = true
      return false
    }
    this.len += n
    return true
  }

  /** The byte at `pos` after any whitespace, or -1 at the end of the file. */
  peek(): number {
    for (;;) {
      if (!this.more()) return -1
      const c = this.buf[this.pos]!
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return c
      this.pos++
    }
  }

  /** The text from `mark` to `pos`, and no mark. */
  take(): string {
    const text = utf8.decode(this.buf.subarray(this.mark, this.pos))
    this.mark = -1
    return text
  }
}

/** Moves past a string whose opening quote is at `pos`; false when the file ends inside it. */
const skipString = (b: Bytes): boolean => {
  b.pos++
  let escaped = false
  for (;;) {
    if (!b.more()) return false
    const buf = b.buf
    while (b.pos < b.len) {
      const c = buf[b.pos++]!
      if (escaped) escaped = false
      else if (c === Backslash) escaped = true
      else if (c === Quote) return true
    }
  }
}

/** Moves past an object or array whose opening bracket is at `pos`; false when the file ends inside it. */
const skipContainer = (b: Bytes): boolean => {
  let depth = 0
  for (;;) {
    if (!b.more()) return false
    const buf = b.buf
    while (b.pos < b.len) {
      const c = buf[b.pos]!
      if (c === Quote) {
        if (!skipString(b)) return false
        break
      }
      b.pos++
      if (c === 123 || c === 91) depth++
      else if ((c === 125 || c === 93) && --depth === 0) return true
    }
  }
}

/** Moves past a number or a literal: up to the next comma, bracket, brace or whitespace. */
const skipScalar = (b: Bytes): boolean => {
  while (b.more()) {
    const c = b.buf[b.pos]!
    if (c === 44 || c === 93 || c === 125 || c === 32 || c === 9 || c === 10 || c === 13) break
    b.pos++
  }
  return b.pos > b.mark
}

/** The JSON text of the value at `pos` (after whitespace), or undefined when the file ends first. */
const valueText = (b: Bytes): string | undefined => {
  const c = b.peek()
  if (c < 0) return undefined
  b.mark = b.pos
  const ok = c === Quote ? skipString(b) : c === 123 || c === 91 ? skipContainer(b) : skipScalar(b)
  if (!ok) {
    b.mark = -1
    return undefined
  }
  return b.take()
}

/** Reads the items of an array whose `[` is at `pos`; false when the outline is not JSON's. */
function* arrayItems(b: Bytes, key: string): Generator<FileEvent, boolean> {
  b.pos++
  if (b.peek() === 93) {
    b.pos++
    return true
  }
  for (let index = 0; ; index++) {
    const text = valueText(b)
    if (text === undefined) return false
    yield { kind: "item", key, index, text }
    const next = b.peek()
    b.pos++
    if (next === 93) return true
    if (next !== 44 || b.peek() === 93) return false
  }
}

/** Reads one member of the top object (`"key": value`); false when the outline is not JSON's. */
function* member(b: Bytes, itemized: ReadonlySet<string>, seen: Set<string>): Generator<FileEvent, boolean> {
  if (b.peek() !== Quote) return false
  const keyText = valueText(b)
  if (keyText === undefined) return false
  let key: string
  try {
    key = JSON.parse(keyText) as string
  } catch {
    return false
  }
  if (seen.has(key)) return false
  seen.add(key)
  if (b.peek() !== 58) return false
  b.pos++
  if (itemized.has(key) && b.peek() === 91) return yield* arrayItems(b, key)
  const text = valueText(b)
  if (text === undefined) return false
  yield { kind: "value", key, text }
  return true
}

/**
 * The events of a file: its top-level values, and the items of the arrays of
 * the keys in `itemized` one by one. Returns whether the outline was
 * well-formed JSON with no key twice (JSON.parse would keep only the last).
 */
export function* fileEvents(read: ReadBytes, itemized: ReadonlySet<string>): Generator<FileEvent, boolean> {
  const b = new Bytes(read)
  // A byte order mark, as UTF-8, is not part of the JSON.
  if (b.more() && b.len >= 3 && b.buf[0] === 0xef && b.buf[1] === 0xbb && b.buf[2] === 0xbf) b.pos = 3
  if (b.peek() !== 123) return false
  b.pos++
  const seen = new Set<string>()
  if (b.peek() === 125) b.pos++
  else
    for (;;) {
      if (!(yield* member(b, itemized, seen))) return false
      const next = b.peek()
      b.pos++
      if (next === 125) break
      if (next !== 44) return false
    }
  return b.peek() === -1
}
