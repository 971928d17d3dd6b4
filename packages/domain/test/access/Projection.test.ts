import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import {
  areScorecardsVisible,
  effectiveListFlags,
  isDetailVisible,
  isListed,
  latestPublished,
  type ProjectionClass,
  ProjectionClasses,
  projectionClassOf,
  projectScorecardList,
  type ScorecardLike,
  type VisibleRecord
} from "../../src/access/Projection.ts"
import { AdminRoles, Caller, type CallerKind, callerKind, Tiers } from "../../src/model/Caller.ts"
import { type EntityStatus, EntityStatuses } from "../../src/model/Entity.ts"
import { type EntityType, EntityTypes } from "../../src/model/EntityType.ts"
import { type ScorecardStatus, ScorecardStatuses } from "../../src/model/Scorecard.ts"

const anonymous = Caller.anonymous("203.0.113.7")
const free = Caller.apiKey("free", "a", "k")
const pro = Caller.apiKey("pro", "a", "k")
const enterprise = Caller.apiKey("enterprise", "a", "k")
const admin = Caller.admin("u", "super_admin")

const record = (
  over: Partial<{
    is_active: boolean
    is_private: boolean
    status: EntityStatus
    is_framework: boolean
  }> = {}
) => ({
  is_active: true,
  is_private: false,
  status: "published" as const,
  ...over
})

const card = (v: number, status: ScorecardStatus) => ({
  id: `sc-${v}`,
  scorecard_version: v,
  status,
  domain_scores: { security: 0.5 },
  mvc_gates: { finality: true }
})
const history = [card(1, "superseded"), card(3, "draft"), card(2, "published")]

describe("Visibility (spec part 2)", () => {
  it("lists hide records where is_private is true or is_active is false", () => {
    const flags = { include_inactive: false, include_frameworks: false, include_unpublished: false }
    assert.isTrue(isListed(record(), flags))
    assert.isFalse(isListed(record({ is_private: true }), flags))
    assert.isFalse(isListed(record({ is_active: false }), flags))
  })

  it("detail lookups return 404 for private or inactive records", () => {
    assert.isFalse(
      isDetailVisible(record({ is_private: true }), { include_inactive: false, include_unpublished: false })
    )
    assert.isFalse(
      isDetailVisible(record({ is_active: false }), { include_inactive: false, include_unpublished: false })
    )
  })

  it("admin bypass: include_inactive=true with an admin JWT shows inactive records", () => {
    const flags = effectiveListFlags(admin, { include_inactive: true })
    assert.isTrue(isListed(record({ is_active: false }), flags))
    assert.isTrue(isDetailVisible(record({ is_active: false }), flags))
  })

  it("for anyone else include_inactive is silently ignored", () => {
    for (const c of [anonymous, free, pro, enterprise]) {
      const flags = effectiveListFlags(c, { include_inactive: true, include_frameworks: true })
      assert.deepStrictEqual(flags, {
        include_inactive: false,
        include_frameworks: false,
        include_unpublished: false
      })
      assert.isFalse(isListed(record({ is_active: false }), flags))
    }
  })

  it("include_frameworks: the admin bypass surfaces framework-tier vaults alongside instances", () => {
    const framework = record({ is_framework: true })
    assert.isFalse(isListed(framework, effectiveListFlags(pro, { include_frameworks: true })))
    assert.isTrue(isListed(framework, effectiveListFlags(admin, { include_frameworks: true })))
    assert.isTrue(isListed(record({ is_framework: false }), effectiveListFlags(anonymous, {})))
  })

  it("non-admins never see draft, scoring or approved entities in lists or on detail; admins do", () => {
    const unpublished = EntityStatuses.filter((s) => s !== "published")
    assert.deepStrictEqual(unpublished, ["draft", "scoring", "approved"])
    const requests = [{}, { include_inactive: true }, { include_inactive: true, include_frameworks: true }]
    for (const requested of requests) {
      for (const c of [anonymous, free, pro, enterprise]) {
        const flags = effectiveListFlags(c, requested)
        assert.isFalse(flags.include_unpublished)
        for (const status of unpublished) {
          assert.isFalse(isListed(record({ status }), flags), `${status} listed for ${c._tag}`)
          assert.isFalse(isDetailVisible(record({ status }), flags), `${status} on detail for ${c._tag}`)
          assert.isFalse(isListed(record({ status, is_framework: true }), flags))
        }
        assert.isTrue(isListed(record(), flags))
        assert.isTrue(isDetailVisible(record(), flags))
      }
      const flags = effectiveListFlags(admin, requested)
      assert.isTrue(flags.include_unpublished)
      for (const status of EntityStatuses) {
        assert.isTrue(isListed(record({ status }), flags), `${status} listed for an admin`)
        assert.isTrue(isDetailVisible(record({ status }), flags), `${status} on detail for an admin`)
        assert.isFalse(isListed(record({ status, is_private: true }), flags), "private stays out of lists")
        assert.isFalse(isDetailVisible(record({ status, is_private: true }), flags))
      }
    }
    const inactiveDraft = record({ status: "draft", is_active: false })
    assert.isFalse(isListed(inactiveDraft, effectiveListFlags(admin, {})))
    assert.isTrue(isListed(inactiveDraft, effectiveListFlags(admin, { include_inactive: true })))
    assert.isFalse(isDetailVisible(inactiveDraft, effectiveListFlags(admin, {})))
  })

  it("non-published entities resolve to 404 on scorecard routes for non-admin callers", () => {
    const draft = record({ status: "draft" })
    for (const c of [anonymous, free, pro, enterprise]) assert.isFalse(areScorecardsVisible(c, draft))
    assert.isTrue(areScorecardsVisible(admin, draft))
    assert.isTrue(areScorecardsVisible(anonymous, record()))
  })
})

describe("Scorecard list projection (spec part 4)", () => {
  it("anonymous and Free get the latest published only, with domain_scores and mvc_gates null", () => {
    for (const c of [anonymous, free]) {
      const items = projectScorecardList(c, "chain", history)
      assert.strictEqual(items.length, 1)
      assert.strictEqual(items[0]!.scorecard_version, 2)
      assert.isNull(items[0]!.domain_scores)
      assert.isNull(items[0]!.mvc_gates)
    }
  })

  it("an unrated entity gives an empty list", () => {
    assert.deepStrictEqual(projectScorecardList(anonymous, "protocol", [card(1, "draft")]), [])
  })

  it("Pro and Enterprise get the full version history, newest first, never drafts", () => {
    for (const c of [pro, enterprise]) {
      const items = projectScorecardList(c, "chain", history)
      assert.deepStrictEqual(
        items.map((s) => s.scorecard_version),
        [2, 1]
      )
      assert.deepStrictEqual(items[0]!.domain_scores, { security: 0.5 })
    }
  })

  it("mvc_gates is populated for chains only; other entity types return null", () => {
    assert.deepStrictEqual(projectScorecardList(pro, "chain", history)[0]!.mvc_gates, { finality: true })
    for (const t of ["protocol", "token", "oracle", "vault", "organisation", "bridge"] as const) {
      assert.isNull(projectScorecardList(pro, t, history)[0]!.mvc_gates)
    }
  })

  it("admins also see drafts", () => {
    assert.deepStrictEqual(
      projectScorecardList(admin, "protocol", history).map((s) => s.scorecard_version),
      [3, 2, 1]
    )
  })

  it("latest published is the highest published version", () => {
    assert.strictEqual(latestPublished(history)?.scorecard_version, 2)
    assert.isUndefined(latestPublished([card(1, "draft")]))
  })
})

describe("projection classes: which callers share a projection of a read", () => {
  const kindsOf = (cls: ProjectionClass) =>
    (Object.keys(ProjectionClasses) as Array<CallerKind>).filter((k) => ProjectionClasses[k] === cls)
  const classes = [...new Set(Object.values(ProjectionClasses))].filter(
    (c): c is ProjectionClass => c !== undefined
  )

  const callerOfKind = (kind: CallerKind): fc.Arbitrary<Caller> =>
    kind === "anonymous"
      ? fc.ipV4().map((ip) => Caller.anonymous(ip))
      : kind === "admin"
        ? fc.tuple(fc.string(), fc.constantFrom(...AdminRoles)).map(([s, role]) => Caller.admin(s, role))
        : fc.tuple(fc.uuid(), fc.uuid()).map(([account, key]) => Caller.apiKey(kind, account, key))

  const scorecard = fc.record({
    id: fc.uuid(),
    scorecard_version: fc.integer({ min: 1, max: 20 }),
    status: fc.constantFrom(...ScorecardStatuses),
    domain_scores: fc.option(
      fc.dictionary(fc.constantFrom("security", "economic"), fc.double({ noNaN: true }))
    ),
    mvc_gates: fc.option(fc.record({ finality: fc.boolean() }))
  })

  /** A read: a record, its scorecards, its type, and the bypass flags the request asks for. */
  const read = fc.record({
    record: fc.record({
      is_active: fc.boolean(),
      is_private: fc.boolean(),
      status: fc.constantFrom(...EntityStatuses),
      is_framework: fc.option(fc.boolean(), { nil: undefined })
    }),
    cards: fc.array(scorecard, { maxLength: 6 }),
    type: fc.constantFrom(...EntityTypes),
    requested: fc.record({
      include_inactive: fc.option(fc.boolean(), { nil: undefined }),
      include_frameworks: fc.option(fc.boolean(), { nil: undefined })
    })
  })

  /** Everything the projection rules show a caller of the read. */
  interface Read {
    readonly record: VisibleRecord
    readonly cards: ReadonlyArray<ScorecardLike>
    readonly type: EntityType
    readonly requested: {
      readonly include_inactive?: boolean | undefined
      readonly include_frameworks?: boolean | undefined
    }
  }

  const projectionOf = (caller: Caller, r: Read) => {
    const flags = effectiveListFlags(caller, r.requested)
    return {
      flags,
      listed: isListed(r.record, flags),
      detail: isDetailVisible(r.record, flags),
      scorecardsVisible: areScorecardsVisible(caller, r.record),
      scorecards: projectScorecardList(caller, r.type, r.cards)
    }
  }

  it("a caller's class is its kind's: anonymous and Free share one, Pro and Enterprise another, an admin none", () => {
    assert.deepStrictEqual(kindsOf("public"), ["anonymous", "free"])
    assert.deepStrictEqual(kindsOf("full"), ["pro", "enterprise"])
    assert.isUndefined(projectionClassOf(admin))
    fc.assert(
      fc.property(
        fc.constantFrom(...Tiers, "admin" as const).chain(callerOfKind),
        (c) => projectionClassOf(c) === ProjectionClasses[callerKind(c)]
      )
    )
  })

  it("two callers of one class get identical projections of any record and its scorecards", () => {
    const sameClass = fc
      .constantFrom(...classes)
      .chain((cls) =>
        fc.tuple(
          fc.constantFrom(...kindsOf(cls)).chain(callerOfKind),
          fc.constantFrom(...kindsOf(cls)).chain(callerOfKind)
        )
      )
    fc.assert(
      fc.property(sameClass, read, ([a, b], r) => {
        assert.strictEqual(projectionClassOf(a), projectionClassOf(b))
        assert.deepStrictEqual(projectionOf(a, r), projectionOf(b, r))
      }),
      { numRuns: 500 }
    )
  })

  it("callers of different classes can get different projections of one record, and an admin's differs from both", () => {
    const r: Read = {
      record: record(),
      cards: history,
      type: "chain" as const,
      requested: {}
    }
    const representatives = [anonymous, pro, admin]
    assert.deepStrictEqual(
      representatives.map((c) => projectionClassOf(c)),
      ["public", "full", undefined]
    )
    for (const [i, a] of representatives.entries())
      for (const b of representatives.slice(i + 1))
        assert.notDeepEqual(projectionOf(a, r), projectionOf(b, r), `${a._tag} and ${b._tag}`)
  })
})
