import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { mayHoldNonFiniteNumber, nonFiniteNumbers } from "../../src/model/JsonNumbers.ts"

describe("JsonNumbers", () => {
  it("nonFiniteNumbers finds every number that parses to ±Infinity, with its path and its text as written", () => {
    const text = '{"a":1e400,"b":[1,-1E+999,{"c":1e308}],"d":{"e":[[' + "9".repeat(400) + ']]},"f":"1e400"}'
    assert.deepStrictEqual(nonFiniteNumbers(text), [
      { path: ["a"], text: "1e400" },
      { path: ["b", 1], text: "-1E+999" },
      { path: ["d", "e", 0, 0], text: "9".repeat(400) }
    ])
    assert.deepStrictEqual(nonFiniteNumbers("1e400"), [{ path: [], text: "1e400" }])
    assert.deepStrictEqual(nonFiniteNumbers("[1e400]"), [{ path: [0], text: "1e400" }])
  })

  it("nonFiniteNumbers finds none in finite numbers, strings that look like numbers, or a text that is not JSON", () => {
    for (const text of [
      '{"a":1e308,"b":-1.7976931348623157e308,"c":1e-400,"d":"1e400"}',
      `[${"9".repeat(300)}]`,
      "[1e400",
      "",
      "null"
    ])
      assert.deepStrictEqual(nonFiniteNumbers(text), [], text)
  })

  it("nonFiniteNumbers walks any depth without overflowing the stack (the text is null past what a reviver can take), and reports at most `limit`", () => {
    const depth = 100_000
    const deep = nonFiniteNumbers(`{"a":${"[".repeat(depth)}1e400${"]".repeat(depth)}}`)
    assert.strictEqual(deep.length, 1)
    assert.deepStrictEqual(deep[0]!.path.slice(0, 3), ["a", 0, 0])
    assert.strictEqual(deep[0]!.path.length, depth + 1)
    assert.isNull(deep[0]!.text)
    assert.strictEqual(nonFiniteNumbers(`[${Array(500).fill("1e400").join(",")}]`, 20).length, 20)
  })

  it("the cheap gate never misses a number that parses to ±Infinity", () => {
    const numberText = fc
      .tuple(
        fc.boolean(),
        fc.integer({ min: 1, max: 330 }),
        fc.option(fc.integer({ min: 1, max: 5 })),
        fc.option(
          fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.integer({ min: 0, max: 999 }))
        )
      )
      .map(([negative, digits, frac, exp]) => {
        const int = `1${"0".repeat(digits - 1)}`
        const fraction = frac === null ? "" : `.${"5".repeat(frac)}`
        const exponent = exp === null ? "" : `${exp[0]}${exp[1]}${exp[2]}`
        return `${negative ? "-" : ""}${int}${fraction}${exponent}`
      })
    const placed = fc
      .tuple(
        numberText,
        fc.constantFrom(
          (n: string) => n,
          (n: string) => `[1,${n}]`,
          (n: string) => `{"a": ${n}}`,
          (n: string) => `[\n${n}]`
        )
      )
      .map(([n, place]) => ({ n, text: place(n) }))
    fc.assert(
      fc.property(placed, ({ n, text }) => Number.isFinite(JSON.parse(n)) || mayHoldNonFiniteNumber(text)),
      { numRuns: 2_000 }
    )
    assert.isFalse(
      mayHoldNonFiniteNumber('{"id":"00000000-4e12-4000-8000-0000000e1234","n":1e99,"x":"a1e400"}')
    )
  })
})
