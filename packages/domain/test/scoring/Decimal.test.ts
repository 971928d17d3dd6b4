import { assert, describe, it } from "@effect/vitest"
import * as Decimal from "../../src/scoring/Decimal.ts"

describe("Decimal (exact arithmetic on published figures)", () => {
  it("a number reads as the decimal its JSON text spells", () => {
    assert.deepStrictEqual(Decimal.fromNumber(76.45), { m: 7645n, e: -2 })
    assert.deepStrictEqual(Decimal.fromNumber(1e-7), { m: 1n, e: -7 })
    assert.deepStrictEqual(Decimal.fromNumber(1.5e21), { m: 15n, e: 20 })
    assert.deepStrictEqual(Decimal.fromNumber(-0.5), { m: -5n, e: -1 })
    assert.throws(() => Decimal.fromNumber(Number.NaN))
  })

  it("products and sums are exact where floating point is not", () => {
    const p = Decimal.mul(Decimal.fromNumber(0.7645), Decimal.fromNumber(100))
    assert.strictEqual(0.7645 * 100, 76.44999999999999)
    assert.strictEqual(Decimal.compare(p, Decimal.fromNumber(76.45)), 0)
    const s = Decimal.add(Decimal.fromNumber(0.1), Decimal.fromNumber(0.2))
    assert.strictEqual(Decimal.toNumber(s), 0.3)
    assert.strictEqual(Decimal.compare(Decimal.sub(s, Decimal.fromNumber(0.3)), Decimal.zero), 0)
  })

  it("half-up rounding sends exact ties up and everything below a tie down", () => {
    assert.strictEqual(Decimal.roundHalfUp(Decimal.fromNumber(76.45), 1), 76.5)
    assert.strictEqual(Decimal.roundHalfUp({ m: 764_499_999_999n, e: -10 }, 1), 76.4)
    assert.strictEqual(Decimal.roundHalfUp(Decimal.fromNumber(76.4), 1), 76.4)
    assert.strictEqual(Decimal.roundHalfUp(Decimal.fromNumber(0.12345), 4), 0.1235)
    assert.strictEqual(Decimal.roundHalfUp(Decimal.fromNumber(-0.25), 1), -0.2)
    assert.strictEqual(Decimal.roundHalfUp(Decimal.fromNumber(-0.26), 1), -0.3)
  })
})
