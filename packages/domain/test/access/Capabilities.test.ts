import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { authorize, type Capability, Capabilities, capabilitiesOf } from "../../src/access/Capabilities.ts"
import { Caller } from "../../src/model/Caller.ts"

const anonymous = Caller.anonymous("203.0.113.7")
const free = Caller.apiKey("free", "acct-1", "key-1")
const pro = Caller.apiKey("pro", "acct-2", "key-2")
const enterprise = Caller.apiKey("enterprise", "acct-3", "key-3")
const admin = Caller.admin("user-9", "admin")

const allowed = (c: Caller, cap: Capability) => Result.isSuccess(authorize(c, cap))

describe("Capabilities (spec part 5 rule 3)", () => {
  it("public endpoints need no credentials", () => {
    for (const cap of [
      "list",
      "detail",
      "scorecards",
      "methodology",
      "incidents",
      "quantum_readiness"
    ] as const) {
      assert.isTrue(allowed(anonymous, cap), cap)
    }
  })

  it("Pro: domains, history, export.csv, export.json, alert rules", () => {
    for (const cap of ["domains", "history", "export", "alert_rules"] as const) {
      assert.strictEqual(Capabilities[cap], "pro")
      assert.isFalse(allowed(free, cap))
      assert.isTrue(allowed(pro, cap))
      assert.isTrue(allowed(enterprise, cap))
    }
  })

  it("Enterprise: questions, rubric, evidence, scorecard by id, compare", () => {
    for (const cap of ["questions", "rubric", "evidence", "scorecard_by_id", "compare"] as const) {
      assert.strictEqual(Capabilities[cap], "enterprise")
      assert.isFalse(allowed(pro, cap))
      assert.isTrue(allowed(enterprise, cap))
    }
  })

  it("a caller without a key on a gated route is refused as missing_key; a low tier as insufficient", () => {
    const r = authorize(anonymous, "domains")
    assert.isTrue(Result.isFailure(r) && r.failure._tag === "MissingKey")
    const t = authorize(free, "questions")
    assert.isTrue(Result.isFailure(t) && t.failure._tag === "InsufficientTier")
    if (Result.isFailure(t) && t.failure._tag === "InsufficientTier") {
      assert.strictEqual(t.failure.required_tier, "enterprise")
      assert.strictEqual(t.failure.tier, "free")
    }
  })

  it("an admin holds every capability", () => {
    assert.deepStrictEqual([...capabilitiesOf("admin")], Object.keys(Capabilities))
    for (const cap of Object.keys(Capabilities) as Array<Capability>) assert.isTrue(allowed(admin, cap))
  })
})
