import { assert, describe, it } from "@effect/vitest"
import {
  makeMatcher,
  matchRatedProtocol,
  normaliseName,
  Unmatched
} from "../../src/incidents/IncidentMatching.ts"

const rated = [
  { slug: "aave-v3", name: "Aave V3" },
  { slug: "curve", name: "Curve Finance" }
]

describe("IncidentMatching", () => {
  it("matches a rated protocol by name or slug, ignoring case, spaces and punctuation", () => {
    assert.strictEqual(normaliseName("Aave V3"), normaliseName("aave-v3"))
    assert.deepStrictEqual(matchRatedProtocol(rated, "Aave V3"), { slug: "aave-v3", matched_protocol: true })
    assert.deepStrictEqual(matchRatedProtocol(rated, "AAVE_v3"), { slug: "aave-v3", matched_protocol: true })
    assert.deepStrictEqual(matchRatedProtocol(rated, "curve"), { slug: "curve", matched_protocol: true })
    assert.deepStrictEqual(matchRatedProtocol(rated, "curve finance"), {
      slug: "curve",
      matched_protocol: true
    })
  })

  it("slug is null and matched_protocol false when no rated protocol matches; matching is never fuzzy", () => {
    assert.deepStrictEqual(matchRatedProtocol(rated, "Aave"), Unmatched)
    assert.deepStrictEqual(matchRatedProtocol(rated, "Aave V2"), Unmatched)
    assert.deepStrictEqual(matchRatedProtocol(rated, "---"), Unmatched)
    assert.deepStrictEqual(matchRatedProtocol([], "Aave V3"), Unmatched)
  })

  it("a slug equality wins over a name equality, and collisions resolve the same whatever the list order", () => {
    const colliding = [
      { slug: "zeta", name: "Alpha" },
      { slug: "alpha", name: "Alpha Protocol" },
      { slug: "beta", name: "Gamma" },
      { slug: "aaa", name: "Gamma" }
    ]
    assert.strictEqual(makeMatcher(colliding)("alpha").slug, "alpha")
    assert.strictEqual(makeMatcher(colliding)("Gamma").slug, "aaa")
    assert.strictEqual(makeMatcher([...colliding].reverse())("Gamma").slug, "aaa")
  })
})
