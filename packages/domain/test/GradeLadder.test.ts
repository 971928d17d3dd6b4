import { assert, describe, it } from "@effect/vitest"
import { GradeLadder, gradeOf, roundHalfUp1 } from "../src/scoring/GradeLadder.ts"

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
