/**
 * Ids an import file may leave out (docs/import-format.md, "Ids"): RFC 4122
 * version-5 UUIDs derived from what names a record (`chain:ethereum`,
 * `scorecard:protocol:lendwell:2`), so the same file gives the same ids on
 * every run and an import stays idempotent. SHA-1 is written out here because
 * the domain imports no platform module.
 */

/** The namespace of derived import ids: changing it would give every derived record a new id. */
export const ImportNamespace = "8c1e3a52-6f0b-5d7e-9a41-2b6c0d9e7f13"

const rotl = (x: number, n: number): number => (x << n) | (x >>> (32 - n))

/** SHA-1 of bytes (FIPS 180-4), as 20 bytes. */
export const sha1 = (message: Uint8Array): Uint8Array => {
  const length = message.length
  const padded = new Uint8Array(Math.ceil((length + 9) / 64) * 64)
  padded.set(message)
  padded[length] = 0x80
  const view = new DataView(padded.buffer)
  view.setUint32(padded.length - 8, Math.floor((length * 8) / 2 ** 32))
  view.setUint32(padded.length - 4, (length * 8) >>> 0)
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]
  const w = new Array<number>(80)
  for (let offset = 0; offset < padded.length; offset += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4)
    for (let i = 16; i < 80; i++) w[i] = rotl(w[i - 3]! ^ w[i - 8]! ^ w[i - 14]! ^ w[i - 16]!, 1)
    let [a, b, c, d, e] = h as [number, number, number, number, number]
    for (let i = 0; i < 80; i++) {
      const [f, k] =
        i < 20
          ? [(b & c) | (~b & d), 0x5a827999]
          : i < 40
            ? [b ^ c ^ d, 0x6ed9eba1]
            : i < 60
              ? [(b & c) | (b & d) | (c & d), 0x8f1bbcdc]
              : [b ^ c ^ d, 0xca62c1d6]
      const t = (rotl(a, 5) + f + e + k + w[i]!) >>> 0
      e = d
      d = c
      c = rotl(b, 30) >>> 0
      b = a
      a = t
    }
    h[0] = (h[0]! + a) >>> 0
    h[1] = (h[1]! + b) >>> 0
    h[2] = (h[2]! + c) >>> 0
    h[3] = (h[3]! + d) >>> 0
    h[4] = (h[4]! + e) >>> 0
  }
  const out = new Uint8Array(20)
  const outView = new DataView(out.buffer)
  for (const [i, x] of h.entries()) outView.setUint32(i * 4, x)
  return out
}

const hex = (bytes: Uint8Array): string => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")

/** The UTF-8 bytes of a string (lone surrogates as U+FFFD, as TextEncoder does). */
const utf8 = (text: string): Uint8Array => {
  const out: Array<number> = []
  for (const ch of text) {
    let c = ch.codePointAt(0)!
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd
    if (c < 0x80) out.push(c)
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63))
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63))
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63))
  }
  return Uint8Array.from(out)
}

/** The version-5 UUID of `name` in `namespace` (RFC 4122, section 4.3). */
export const uuidV5 = (name: string, namespace: string = ImportNamespace): string => {
  const ns = namespace.replaceAll("-", "")
  const nameBytes = utf8(name)
  const input = new Uint8Array(16 + nameBytes.length)
  for (let i = 0; i < 16; i++) input[i] = Number.parseInt(ns.slice(i * 2, i * 2 + 2), 16)
  input.set(nameBytes, 16)
  const hash = sha1(input).subarray(0, 16)
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const h = hex(hash)
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

/** The derived id of an entity: its type and slug. */
export const entityIdOf = (type: string, slug: string): string => uuidV5(`${type}:${slug}`)
/** The derived id of a scorecard: its entity's type and slug, and its version. */
export const scorecardIdOf = (type: string, slug: string, version: number): string =>
  uuidV5(`scorecard:${type}:${slug}:${version}`)
/** The derived id of an answer: its scorecard and question. */
export const answerIdOf = (scorecardId: string, questionId: string): string =>
  uuidV5(`answer:${scorecardId.toLowerCase()}:${questionId}`)
