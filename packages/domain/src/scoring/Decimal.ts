/**
 * Exact decimal arithmetic for the published figures. A served number is read
 * as the decimal a client reads in the JSON (JavaScript's shortest round-trip
 * form), so sums, products and half-up rounding of served figures come out as
 * they do on paper: 0.8765 x 33.333333 is 29.2166663745, and a composite that
 * is exactly 76.45 rounds to 76.5 whatever binary floating point makes of it.
 */

/** m x 10^e, exactly. */
export interface Decimal {
  readonly m: bigint
  readonly e: number
}

const NumberText = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/

/** The decimal of a finite number's shortest round-trip text (what JSON.stringify writes). */
export const fromNumber = (x: number): Decimal => {
  const match = NumberText.exec(String(x))
  if (match === null) throw new RangeError(`not a finite number: ${x}`)
  const [, sign, int, frac = "", exp = "0"] = match
  return { m: BigInt(`${sign}${int}${frac}`), e: Number(exp) - frac.length }
}

const pow10 = (k: number): bigint => 10n ** BigInt(k)

const scaleTo = (a: Decimal, e: number): bigint => (a.e === e ? a.m : a.m * pow10(a.e - e))

export const add = (a: Decimal, b: Decimal): Decimal => {
  const e = Math.min(a.e, b.e)
  return { m: scaleTo(a, e) + scaleTo(b, e), e }
}

export const sub = (a: Decimal, b: Decimal): Decimal => add(a, { m: -b.m, e: b.e })

export const mul = (a: Decimal, b: Decimal): Decimal => ({ m: a.m * b.m, e: a.e + b.e })

/** -1, 0 or 1 as a is below, equal to or above b. */
export const compare = (a: Decimal, b: Decimal): -1 | 0 | 1 => {
  const e = Math.min(a.e, b.e)
  const x = scaleTo(a, e)
  const y = scaleTo(b, e)
  return x < y ? -1 : x > y ? 1 : 0
}

export const zero: Decimal = { m: 0n, e: 0 }

/** The nearest number to the decimal (for figures that are not published as such). */
export const toNumber = (a: Decimal): number => Number(`${a.m}e${a.e}`)

/** Rounded half-up (ties toward +infinity) to `places` decimals, as the nearest number. */
export const roundHalfUp = (a: Decimal, places: number): number => {
  const k = -places - a.e
  if (k <= 0) return toNumber(a)
  const p = pow10(k)
  const shifted = a.m + p / 2n
  // BigInt division truncates toward zero; half-up needs the floor.
  const q = shifted >= 0n || shifted % p === 0n ? shifted / p : shifted / p - 1n
  return Number(`${q}e${-places}`)
}
