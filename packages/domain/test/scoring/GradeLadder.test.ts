import { assert, describe, it } from "@effect/vitest"
import { GradeLadder, gradeOf, roundHalfUp1 } from "../../src/scoring/GradeLadder.ts"

describe("GradeLadder", () => {
  it("grade ladder runs from AAA at 95 down to D at 0", () => {
    assert.strictEqual(GradeLadder[0]?.grade, "AAA")
    assert.strictEqual(GradeLadder[0]?.min_score, 95)
    assert.strictEqual(GradeLadder.at(-1)?.grade, "D")
    assert.strictEqual(GradeLadder.at(-1)?.min_score, 0)
  })
  it("composite is rounded half-up to one decimal before band assignment", () => {
    assert.strictEqual(roundHalfUp1(94.95), 95)
    assert.strictEqual(roundHalfUp1(84.94999999999999), 85)
    assert.strictEqual(roundHalfUp1(94.94), 94.9)
    assert.strictEqual(gradeOf(94.95), "AAA")
    assert.strictEqual(gradeOf(94.94), "AA")
  })
})

describe("GradeLadder bands", () => {
  it("every score in [0, 100] has exactly the band of the highest threshold it reaches", () => {
    assert.strictEqual(gradeOf(0), "D")
    assert.strictEqual(gradeOf(100), "AAA")
    for (const band of GradeLadder) {
      assert.strictEqual(gradeOf(band.min_score), band.grade)
    }
    assert.strictEqual(gradeOf(64.94), "B")
    assert.strictEqual(gradeOf(64.95), "BBB")
  })
  it("thresholds are strictly decreasing and grades are the seven published ones", () => {
    assert.deepStrictEqual(
      GradeLadder.map((b) => b.grade),
      ["AAA", "AA", "A", "BBB", "B", "C", "D"]
    )
    for (let i = 1; i < GradeLadder.length; i++) {
      assert.isTrue(GradeLadder[i]!.min_score < GradeLadder[i - 1]!.min_score)
    }
  })
})
