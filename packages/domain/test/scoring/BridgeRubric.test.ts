import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import {
  BridgeCategories,
  BridgeCategoryDomains,
  BridgeQuestionCatalogue,
  bridgeDomainWeights,
  checkBridgeQuestionList
} from "../../src/scoring/BridgeRubric.ts"
import { scoreEntity } from "../../src/scoring/ScoreEntity.ts"

const sum = (m: Record<string, number>) => Object.values(m).reduce((x, y) => x + y, 0)

describe("BridgeRubric (spec part 1 rule 6)", () => {
  it("the bridge question catalogue has 62 questions in canonical order", () => {
    assert.strictEqual(BridgeQuestionCatalogue.length, 62)
    assert.deepStrictEqual(
      BridgeQuestionCatalogue.map((q) => q.position),
      Array.from({ length: 62 }, (_, i) => i + 1)
    )
    assert.strictEqual(new Set(BridgeQuestionCatalogue.map((q) => q.id)).size, 62)
    assert.isTrue(Result.isSuccess(checkBridgeQuestionList(BridgeQuestionCatalogue.map((q) => q.id))))
  })

  it("each bridge is scored on four universal domains plus one domain per category it carries, renormalised to 100", () => {
    const w = bridgeDomainWeights(["messaging"])
    assert.deepStrictEqual(Object.keys(w), [
      "security",
      "validator_set",
      "operational",
      "governance",
      "message_verification"
    ])
    assert.strictEqual(sum(w), 100)
    assert.closeTo(w.security!, 25, 1e-9)
    assert.closeTo(w.message_verification!, (20 / 120) * 100, 1e-6)
    const two = bridgeDomainWeights(["messaging", "lock-and-mint"])
    assert.strictEqual(Object.keys(two).length, 6)
    assert.strictEqual(sum(two), 100)
    assert.strictEqual(sum(bridgeDomainWeights([])), 100)
  })

  it("bridges with different categories are scored on different rubrics", () => {
    const a = bridgeDomainWeights(["liquidity-network"])
    const b = bridgeDomainWeights(["light-client"])
    assert.notDeepEqual(Object.keys(a), Object.keys(b))
    assert.isTrue("liquidity" in a && !("liquidity" in b))
  })

  it("every category domain has questions in the catalogue", () => {
    for (const c of BridgeCategories) {
      assert.isTrue(BridgeQuestionCatalogue.some((q) => q.domain === BridgeCategoryDomains[c]))
    }
  })

  it("a bridge question list that is not the 62-question catalogue in canonical order is refused", () => {
    const ids = BridgeQuestionCatalogue.map((q) => q.id)
    const short = checkBridgeQuestionList(ids.slice(1))
    assert.isTrue(Result.isFailure(short) && short.failure.includes("62"))
    const swapped = [...ids]
    ;[swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!]
    const r = checkBridgeQuestionList(swapped)
    assert.isTrue(Result.isFailure(r) && r.failure.includes("canonical order"))
  })

  it("a bridge answers all 62 questions; those of categories it does not carry are null and do not count", () => {
    const carried = ["message_verification", "custody"]
    const answers = BridgeQuestionCatalogue.map((q) => {
      const ruledOut = isCategory(q.domain) && !carried.includes(q.domain)
      return {
        domain: q.domain,
        score: ruledOut ? null : q.domain === "custody" ? 1 : 4,
        max_score: 4,
        weight: q.weight,
        confidence: ruledOut ? ("not_applicable" as const) : ("high" as const)
      }
    })
    const r = Result.getOrThrow(
      scoreEntity({ entity_type: "bridge", categories: ["messaging", "lock-and-mint"], answers })
    )
    assert.deepStrictEqual(Object.keys(r.domain_weights).sort(), [
      "custody",
      "governance",
      "message_verification",
      "operational",
      "security",
      "validator_set"
    ])
    assert.strictEqual(r.intrinsic_composite_score, 89.3) // 100 - (20 / 140) * 100 * 0.75, rounded
  })
})

const isCategory = (domain: string) => (Object.values(BridgeCategoryDomains) as string[]).includes(domain)
