/**
 * Rows in Postgres' binary COPY format, cut into CopyData messages: the
 * signature and header, then each row as its field count and each field as
 * its length (-1 for NULL) and its bytes in the type's binary form, then the
 * trailer. The values are those the statements bind in binary form (uuid as
 * 16 bytes, int4, float8 as the IEEE double, text as UTF-8), so a row copied
 * is stored as the statement would store it.
 */

/** Bytes of a CopyData message's body, above which the message is sent and another begun. */
const FrameBytes = 256 * 1024
/** Written messages' buffers kept for the next messages: a few are in the socket's hands at a time. */
const PooledFrames = 8
/**
 * Buffers of messages the socket has written (`release`), reused by every
 * writer instead of allocated: a buffer is in one writer's hands from `take`
 * to `release`.
 */
const pool: Array<Uint8Array> = []

const Signature = [0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]
const encoder = new TextEncoder()
/** Below this length a text is written a character at a time while it is ASCII; a call costs more. */
const AsciiLoopUpTo = 48

const hexValue = (code: number): number =>
  code >= 48 && code <= 57
    ? code - 48
    : code >= 97 && code <= 102
      ? code - 87
      : code >= 65 && code <= 70
        ? code - 55
        : -1

/** The hex digits' offsets in a hyphenated UUID. */
const UuidDigits = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34]

/**
 * A growing buffer of CopyData messages: fields are appended to the current
 * message, and `take` closes it (its length written) and starts the next.
 */
export class CopyWriter {
  private bytes: Uint8Array
  private view: DataView
  private at: number

  /** A writer of a COPY's messages, its first beginning with the header; `loose`: of bare fields. */
  constructor(loose?: "loose") {
    this.bytes = loose === undefined ? (pool.pop() ?? new Uint8Array(FrameBytes + 5)) : new Uint8Array(256)
    this.view = new DataView(this.bytes.buffer)
    if (loose === undefined) {
      // The signature, then the flags and the header extension's length, both zero.
      this.bytes.set(Signature, 5)
      this.bytes.fill(0, 5 + Signature.length, 5 + Signature.length + 8)
      this.at = 5 + Signature.length + 8
    } else this.at = 0
  }

  /** Whether the current message is full enough to be sent. */
  get full(): boolean {
    return this.at >= FrameBytes
  }

  /** The current message, closed, or undefined when it holds nothing; a new one is begun. */
  take(): Uint8Array | undefined {
    if (this.at === 5) return undefined
    const out = this.bytes.subarray(0, this.at)
    out[0] = 0x64
    this.view.setInt32(1, this.at - 1)
    this.bytes = pool.pop() ?? new Uint8Array(FrameBytes + 5)
    this.view = new DataView(this.bytes.buffer)
    this.at = 5
    return out
  }

  /**
   * Gives back a message `take` made once the socket has written it: its
   * buffer is reused for a later message (one grown for a large row is not).
   */
  release(frame: Uint8Array): void {
    const whole = frame.buffer
    if (whole.byteLength === FrameBytes + 5 && pool.length < PooledFrames && whole instanceof ArrayBuffer)
      pool.push(new Uint8Array(whole))
  }

  /** Room for `n` more bytes in the current message (grown for a row larger than a message). */
  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return
    const bigger = new Uint8Array(Math.max(this.bytes.length * 2, this.at + n))
    bigger.set(this.bytes.subarray(0, this.at))
    this.bytes = bigger
    this.view = new DataView(bigger.buffer)
  }

  /** A row's field count. */
  row(fields: number): void {
    this.room(2)
    this.view.setInt16(this.at, fields)
    this.at += 2
  }

  /** The end of the rows (the trailer). */
  end(): void {
    this.row(-1)
  }

  nul(): void {
    this.room(4)
    this.view.setInt32(this.at, -1)
    this.at += 4
  }

  int4(n: number): void {
    if (!Number.isInteger(n) || n < -2147483648 || n > 2147483647)
      throw new Error(`Expected an int4, received ${n}`)
    this.room(8)
    this.view.setInt32(this.at, 4)
    this.view.setInt32(this.at + 4, n)
    this.at += 8
  }

  float8(n: number | null): void {
    if (n === null) {
      this.nul()
      return
    }
    if (typeof n !== "number") throw new Error(`Expected a number, received ${typeof n}`)
    this.room(12)
    this.view.setInt32(this.at, 8)
    this.view.setFloat64(this.at + 4, n)
    this.at += 12
  }

  /** A hyphenated UUID in either case, as the driver's uuid parameters take it. */
  uuid(text: string): void {
    if (
      typeof text !== "string" ||
      text.length !== 36 ||
      text.charCodeAt(8) !== 45 ||
      text.charCodeAt(13) !== 45 ||
      text.charCodeAt(18) !== 45 ||
      text.charCodeAt(23) !== 45
    )
      throw new Error(`Expected a UUID, received "${text}"`)
    this.room(20)
    this.view.setInt32(this.at, 16)
    for (let i = 0; i < 16; i++) {
      const high = hexValue(text.charCodeAt(UuidDigits[i]!))
      const low = hexValue(text.charCodeAt(UuidDigits[i]! + 1))
      if (high < 0 || low < 0) throw new Error(`Expected a UUID, received "${text}"`)
      this.bytes[this.at + 4 + i] = (high << 4) | low
    }
    this.at += 20
  }

  /** A UUID as the four big-endian words at `words[at..at + 3]`. */
  uuidWords(words: Uint32Array, at: number): void {
    this.room(20)
    this.view.setInt32(this.at, 16)
    this.view.setUint32(this.at + 4, words[at]!)
    this.view.setUint32(this.at + 8, words[at + 1]!)
    this.view.setUint32(this.at + 12, words[at + 2]!)
    this.view.setUint32(this.at + 16, words[at + 3]!)
    this.at += 20
  }

  text(s: string | null): void {
    if (s === null) {
      this.nul()
      return
    }
    if (typeof s !== "string") throw new Error(`Expected a text, received ${typeof s}`)
    const n = s.length
    this.room(4 + n * 3)
    const start = this.at + 4
    let i = 0
    if (n <= AsciiLoopUpTo)
      for (; i < n; i++) {
        const code = s.charCodeAt(i)
        if (code > 0x7f) break
        this.bytes[start + i] = code
      }
    const written = i === n ? n : encoder.encodeInto(s, this.bytes.subarray(start)).written
    this.view.setInt32(this.at, written)
    this.at = start + written
  }

  /**
   * A whole row of `answers` (AnswerCopy.ts) with one check for room: the
   * scorecard's id (its field, length included), the position, the answer's
   * id as four words at `words[at..at + 3]`, then the other fields' bytes.
   */
  answerRow(
    scorecard: Uint8Array,
    position: number,
    words: Uint32Array,
    at: number,
    fields: Uint8Array
  ): void {
    this.room(2 + scorecard.length + 8 + 20 + fields.length)
    const v = this.view
    let p = this.at
    v.setInt16(p, 11)
    this.bytes.set(scorecard, p + 2)
    p += 2 + scorecard.length
    v.setInt32(p, 4)
    v.setInt32(p + 4, position)
    v.setInt32(p + 8, 16)
    v.setUint32(p + 12, words[at]!)
    v.setUint32(p + 16, words[at + 1]!)
    v.setUint32(p + 20, words[at + 2]!)
    v.setUint32(p + 24, words[at + 3]!)
    p += 28
    this.bytes.set(fields, p)
    this.at = p + fields.length
  }

  /** Bytes made elsewhere by a loose writer's fields (`drain`), appended as they are. */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length)
    this.bytes.set(bytes, this.at)
    this.at += bytes.length
  }

  /** The bytes a loose writer holds, to `raw` them elsewhere; the writer starts over. */
  drain(): Uint8Array {
    const out = this.bytes.slice(0, this.at)
    this.at = 0
    return out
  }
}
