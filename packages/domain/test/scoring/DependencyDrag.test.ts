import { assert, describe, it } from "@effect/vitest"
import { applyDrag } from "../../src/scoring/DependencyDrag.ts"

describe("DependencyDrag (spec part 1 rule 8)", () => {
  it("rule 8: the headline composite may be reduced by dependency drag", () => {
    const r = applyDrag(80, [
      { entity_type: "chain", slug: "ethereum", composite_score: 90, exposure: 1 },
      { entity_type: "oracle", slug: "chainlink", composite_score: 60, exposure: 0.5 }
    ])
    assert.strictEqual(r.composite_score, 70)
    assert.strictEqual(r.largest_drag, 10)
  })

  it("the largest drag is named as '<type>: <slug>'", () => {
    const r = applyDrag(80, [
      { entity_type: "chain", slug: "weakchain", composite_score: 40, exposure: 0.5 },
      { entity_type: "oracle", slug: "chainlink", composite_score: 60, exposure: 0.5 }
    ])
    assert.strictEqual(r.largest_drag_hint, "chain: weakchain")
    assert.strictEqual(r.composite_score, 60)
  })

  it("a stronger dependency does not drag, and no drag gives no hint", () => {
    const r = applyDrag(70, [{ entity_type: "chain", slug: "ethereum", composite_score: 90, exposure: 1 }])
    assert.strictEqual(r.composite_score, 70)
    assert.isNull(r.largest_drag_hint)
  })

  it("an unrated dependency does not drag but is flagged with has_unrated_dependencies", () => {
    const r = applyDrag(70, [
      { entity_type: "bridge", slug: "new-bridge", composite_score: null, exposure: 1 }
    ])
    assert.strictEqual(r.composite_score, 70)
    assert.isTrue(r.has_unrated_dependencies)
    assert.isFalse(applyDrag(70, []).has_unrated_dependencies)
  })
})
