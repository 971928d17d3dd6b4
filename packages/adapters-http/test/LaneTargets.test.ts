/**
 * The lane of cache hits' memory of request targets (cache/Answers.ts makeTargets):
 * what a target leads to per kind of caller, one lookup for any of several
 * kinds, and its bound (MaxLaneTargets entries; the target learned longest
 * ago is forgotten first, with all its entries).
 */
import { assert, describe, it } from "@effect/vitest"
import { MaxLaneTargets, makeTargets } from "@ratings/adapters-http/server/cache/Answers"
import { AnonymousKind, KeyedKinds } from "@ratings/adapters-http/server/HitLane"
import { ProjectionClasses } from "@ratings/domain/access/Projection"
import { type CallerKind, KeyTiers } from "@ratings/domain/model/Caller"

const learned = (key: string) => ({ topics: [], projection: "public" as never, key, route: undefined })

describe("the lane's request targets", () => {
  it("a target's entry is per kind of caller; one lookup tells whether any of several kinds has one", () => {
    const targets = makeTargets()
    targets.set("free", "/api/v1/protocols", learned("p-free"))
    targets.set("anonymous", "/api/v1/protocols", learned("p-anon"))
    assert.strictEqual(targets.get("free", "/api/v1/protocols")?.key, "p-free")
    assert.strictEqual(targets.get("anonymous", "/api/v1/protocols")?.key, "p-anon")
    assert.isUndefined(targets.get("pro", "/api/v1/protocols"))
    assert.isTrue(targets.hasAny(["pro", "free"], "/api/v1/protocols"))
    assert.isFalse(targets.hasAny(["pro", "enterprise"], "/api/v1/protocols"))
    assert.isFalse(targets.hasAny(["anonymous"], "/api/v1/chains"))
    targets.set("free", "/api/v1/protocols", learned("p-free-2"))
    assert.strictEqual(targets.get("free", "/api/v1/protocols")?.key, "p-free-2", "learned again: replaced")
    assert.strictEqual(targets.size(), 2)
  })

  it("at most MaxLaneTargets entries: past it the target learned longest ago goes, with all its entries", () => {
    const targets = makeTargets()
    targets.set("anonymous", "/t/first", learned("a"))
    targets.set("enterprise", "/t/first", learned("e"))
    for (let i = 0; targets.size() < MaxLaneTargets; i++) targets.set("pro", `/t/${i}`, learned(`${i}`))
    assert.strictEqual(targets.size(), MaxLaneTargets)
    assert.isDefined(targets.get("enterprise", "/t/first"))
    targets.set("pro", "/t/next", learned("next"))
    assert.isUndefined(targets.get("anonymous", "/t/first"), "the oldest target is forgotten")
    assert.isUndefined(targets.get("enterprise", "/t/first"), "with each of its entries")
    assert.strictEqual(targets.size(), MaxLaneTargets - 1)
    assert.strictEqual(targets.get("pro", "/t/next")?.key, "next")
    assert.strictEqual(targets.get("pro", "/t/0")?.key, "0", "the others stay")
  })

  it("the lane serves the caller kinds the domain's Projection shares answers between: anonymous and each key tier with a class, never an admin", () => {
    const shared = (Object.keys(ProjectionClasses) as Array<CallerKind>).filter(
      (kind) => ProjectionClasses[kind] !== undefined
    )
    assert.deepStrictEqual([...AnonymousKind, ...KeyedKinds], shared)
    assert.deepStrictEqual(
      KeyedKinds,
      KeyTiers.filter((tier) => shared.includes(tier))
    )
    assert.notInclude([...AnonymousKind, ...KeyedKinds], "admin")
  })
})
