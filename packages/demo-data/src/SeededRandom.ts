/**
 * A small seeded pseudo-random generator (sfc32) for the demo builder and the
 * scale generator. Output must be byte-identical for the same seed on every
 * machine and Node version, so nothing here reads `Math.random`, the clock or
 * the platform: only 32-bit integer arithmetic, which JavaScript fixes exactly.
 */

/** 32-bit FNV-1a of a string, the seed material for everything else. */
export const fnv1a = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

/** A uniform number in [0, 1) determined by the text alone (a stable "coin" per key). */
export const unitHash = (text: string): number => {
  // FNV-1a alone has weak low bits; one round of a murmur finaliser spreads them.
  let h = fnv1a(text)
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return (h >>> 0) / 4_294_967_296
}

const HEX = "0123456789abcdef"

export interface SeededRandom {
  /** Uniform in [0, 1). */
  readonly next: () => number
  /** Uniform integer in [0, n). */
  readonly int: (n: number) => number
  /** Uniform integer in [min, max] inclusive. */
  readonly between: (min: number, max: number) => number
  readonly pick: <A>(items: ReadonlyArray<A>) => A
  /** True with probability p. */
  readonly chance: (p: number) => boolean
  /** A random-looking UUID (version 4 layout), reproducible from the seed. */
  readonly uuid: () => string
}

/** sfc32 seeded from a string through FNV-1a of four derived keys. */
export const seededRandom = (seed: string | number): SeededRandom => {
  const s = String(seed)
  let a = fnv1a(`a:${s}`)
  let b = fnv1a(`b:${s}`)
  let c = fnv1a(`c:${s}`)
  let d = fnv1a(`d:${s}`) | 1
  const u32 = (): number => {
    const t = (((a + b) | 0) + d) | 0
    d = (d + 1) | 0
    a = b ^ (b >>> 9)
    b = (c + (c << 3)) | 0
    c = (c << 21) | (c >>> 11)
    c = (c + t) | 0
    return t >>> 0
  }
  // Discard the first outputs: sfc32 mixes poorly for a few rounds after seeding.
  for (let i = 0; i < 12; i++) u32()
  const next = (): number => u32() / 4_294_967_296
  const int = (n: number): number => Math.floor(next() * n)
  const hex8 = (): string => {
    let x = u32()
    let out = ""
    for (let i = 0; i < 8; i++) {
      out = HEX[x & 15]! + out
      x >>>= 4
    }
    return out
  }
  return {
    next,
    int,
    between: (min, max) => min + int(max - min + 1),
    pick: (items) => items[int(items.length)]!,
    chance: (p) => next() < p,
    uuid: () => {
      const p1 = hex8()
      const p2 = hex8()
      const p3 = hex8()
      const p4 = hex8()
      const variant = HEX[8 + (u32() & 3)]!
      return `${p1}-${p2.slice(0, 4)}-4${p2.slice(5, 8)}-${variant}${p3.slice(1, 4)}-${p3.slice(4)}${p4}`
    }
  }
}
