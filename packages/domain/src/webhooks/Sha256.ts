/**
 * SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104) in plain TypeScript, over
 * the UTF-8 bytes of strings.
 *
 * The domain may not import `node:crypto`, and WebCrypto is asynchronous, yet
 * webhook signing must be available to the in-memory `Signer` and to tests as
 * a real, synchronous implementation. Production signs with `node:crypto`
 * (adapters-webhook), and a property test there shows both agree byte for byte.
 */

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2
])

const H0 = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]

const BLOCK_BYTES = 64

/**
 * UTF-8 bytes of a string, as `TextEncoder` and Node's `Buffer` produce them:
 * a lone surrogate becomes U+FFFD, so a body containing one is signed over
 * the same bytes that go on the wire.
 */
export const utf8Bytes = (text: string): Uint8Array => {
  const out: Array<number> = []
  for (let i = 0; i < text.length; i++) {
    let code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = i + 1 < text.length ? text.charCodeAt(i + 1) : 0
      if (next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00)
        i++
      } else {
        code = 0xfffd
      }
    } else if (code >= 0xdc00 && code <= 0xdfff) {
      code = 0xfffd
    }
    if (code < 0x80) {
      out.push(code)
    } else if (code < 0x800) {
      out.push(0xc0 | (code >> 6), 0x80 | (code & 0x3f))
    } else if (code < 0x10000) {
      out.push(0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f))
    } else {
      out.push(
        0xf0 | (code >> 18),
        0x80 | ((code >> 12) & 0x3f),
        0x80 | ((code >> 6) & 0x3f),
        0x80 | (code & 0x3f)
      )
    }
  }
  return Uint8Array.from(out)
}

const toBytes = (input: Uint8Array | string): Uint8Array =>
  typeof input === "string" ? utf8Bytes(input) : input

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n))

/** SHA-256 digest (32 bytes) of bytes, or of the UTF-8 bytes of a string. */
export const sha256 = (input: Uint8Array | string): Uint8Array => {
  const message = toBytes(input)
  const bitLength = message.length * 8
  // One 0x80 byte, zero padding, then the 64-bit big-endian bit length.
  const paddedLength = Math.ceil((message.length + 9) / BLOCK_BYTES) * BLOCK_BYTES
  const padded = new Uint8Array(paddedLength)
  padded.set(message)
  padded[message.length] = 0x80
  const view = new DataView(padded.buffer)
  view.setUint32(paddedLength - 8, Math.floor(bitLength / 0x100000000))
  view.setUint32(paddedLength - 4, bitLength >>> 0)

  const h = Uint32Array.from(H0)
  const w = new Uint32Array(64)
  for (let offset = 0; offset < paddedLength; offset += BLOCK_BYTES) {
    for (let t = 0; t < 16; t++) w[t] = view.getUint32(offset + t * 4)
    for (let t = 16; t < 64; t++) {
      const w15 = w[t - 15]!
      const w2 = w[t - 2]!
      const s0 = rotr(w15, 7) ^ rotr(w15, 18) ^ (w15 >>> 3)
      const s1 = rotr(w2, 17) ^ rotr(w2, 19) ^ (w2 >>> 10)
      w[t] = (w[t - 16]! + s0 + w[t - 7]! + s1) >>> 0
    }
    let a = h[0]!
    let b = h[1]!
    let c = h[2]!
    let d = h[3]!
    let e = h[4]!
    let f = h[5]!
    let g = h[6]!
    let hh = h[7]!
    for (let t = 0; t < 64; t++) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
      const ch = (e & f) ^ (~e & g)
      const t1 = (hh + S1 + ch + K[t]! + w[t]!) >>> 0
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
      const maj = (a & b) ^ (a & c) ^ (b & c)
      const t2 = (S0 + maj) >>> 0
      hh = g
      g = f
      f = e
      e = (d + t1) >>> 0
      d = c
      c = b
      b = a
      a = (t1 + t2) >>> 0
    }
    h[0] = (h[0]! + a) >>> 0
    h[1] = (h[1]! + b) >>> 0
    h[2] = (h[2]! + c) >>> 0
    h[3] = (h[3]! + d) >>> 0
    h[4] = (h[4]! + e) >>> 0
    h[5] = (h[5]! + f) >>> 0
    h[6] = (h[6]! + g) >>> 0
    h[7] = (h[7]! + hh) >>> 0
  }

  const digest = new Uint8Array(32)
  const out = new DataView(digest.buffer)
  for (let i = 0; i < 8; i++) out.setUint32(i * 4, h[i]!)
  return digest
}

/**
 * HMAC-SHA256 (RFC 2104) of a message under a key; strings are taken as
 * their UTF-8 bytes. Keys longer than the block are hashed first, as the RFC
 * requires (RFC 4231 test case 6 exercises this).
 */
export const hmacSha256 = (key: Uint8Array | string, message: Uint8Array | string): Uint8Array => {
  let keyBytes = toBytes(key)
  if (keyBytes.length > BLOCK_BYTES) keyBytes = sha256(keyBytes)
  const block = new Uint8Array(BLOCK_BYTES)
  block.set(keyBytes)
  const messageBytes = toBytes(message)
  const inner = new Uint8Array(BLOCK_BYTES + messageBytes.length)
  const outer = new Uint8Array(BLOCK_BYTES + 32)
  for (let i = 0; i < BLOCK_BYTES; i++) {
    inner[i] = block[i]! ^ 0x36
    outer[i] = block[i]! ^ 0x5c
  }
  inner.set(messageBytes, BLOCK_BYTES)
  outer.set(sha256(inner), BLOCK_BYTES)
  return sha256(outer)
}

/**
 * Equality of two strings that takes the same time wherever they first
 * differ: it walks all of `expected` and accumulates differences instead of
 * returning at the first mismatch, so response timing does not leak how many
 * leading characters of a forged signature were right. Only the length of
 * `expected` (public: a digest has a fixed size) shapes the running time.
 */
export const constantTimeEqual = (expected: string, received: string): boolean => {
  let difference = expected.length ^ received.length
  for (let i = 0; i < expected.length; i++) {
    // charCodeAt past the end is NaN, which `| 0` turns into 0 without a branch.
    difference |= expected.charCodeAt(i) ^ (received.charCodeAt(i) | 0)
  }
  return difference === 0
}
