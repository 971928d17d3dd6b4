import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import { Caller } from "../../src/model/Caller.ts"
import { Branding, brandingOf, DefaultBranding } from "../../src/model/ServiceInfo.ts"
import { GradeLadder } from "../../src/scoring/GradeLadder.ts"
import { RatingsReader } from "../../src/services/RatingsReader.ts"
import { entity, scorecard, T0 } from "./fixtures.ts"
import { EntityRepository } from "../../src/ports/EntityRepository.ts"
import { ScorecardRepository } from "../../src/ports/ScorecardRepository.ts"
import { isPubliclyReadable } from "../../src/access/Projection.ts"
import { dragHintTarget } from "../../src/scoring/DependencyDrag.ts"
import { Option } from "effect"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { RubricRepositoryMemory } from "../../src/ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../src/ports/memory/ScorecardRepositoryMemory.ts"

const anonymous = Caller.anonymous("198.51.100.1")
const free = Caller.apiKey("free", "a", "k")
const pro = Caller.apiKey("pro", "a", "k")
const enterprise = Caller.apiKey("enterprise", "a", "k")
const admin = Caller.admin("ops", "admin")

const aave = entity("protocol", "aave-v3", { categories: ["lending"] })
const hidden = entity("protocol", "hidden-protocol", { is_private: true })
const retired = entity("protocol", "retired-protocol", { is_active: false })
const draft = entity("protocol", "draft-protocol", { status: "draft" })
const scoring = entity("protocol", "scoring-protocol", { status: "scoring" })
const approved = entity("protocol", "approved-protocol", { status: "approved" })
const eth = entity("chain", "ethereum")
const bridge = entity("bridge", "new-bridge", { categories: ["messaging"] })

const aaveCards = [
  scorecard(aave, 1, "superseded"),
  scorecard(aave, 2, "published"),
  scorecard(aave, 3, "draft")
]
const ethCards = [scorecard(eth, 1, "published")]
const draftCards = [scorecard(draft, 1, "published")]

/** The module's seeded stores (with these questions in the rubric), for readers composed over them. */
const seededStores = (questions: Parameters<typeof RubricRepositoryMemory.layer>[0] = []) =>
  Layer.mergeAll(
    EntityRepositoryMemory.layer([aave, hidden, retired, draft, scoring, approved, eth, bridge]),
    ScorecardRepositoryMemory.layer({
      scorecards: [...aaveCards, ...ethCards, ...draftCards],
      history: [
        {
          entity_id: aave.record.id,
          scorecard_id: aaveCards[1]!.id,
          scorecard_version: 2,
          grade: "A",
          letter_grade: "A",
          composite_score: 80,
          intrinsic_composite_score: 80,
          intrinsic_letter_grade: "A",
          published_at: T0,
          reasoning: "re-rated after the v3.1 audit"
        }
      ]
    }),
    RubricRepositoryMemory.layer(questions)
  )

const stores = seededStores()

const layer = RatingsReader.layer.pipe(
  Layer.provide(
    seededStores([
      {
        id: "Q-1",
        entity_type: "protocol",
        domain: "security",
        text: "Audited?",
        weight: 1,
        max_score: 5,
        criteria: [{ score: 5, description: "two audits" }],
        position: 1
      }
    ])
  )
)

const list = (caller: Caller, extra: { include_inactive?: boolean } = {}) =>
  Effect.gen(function* () {
    const r = yield* RatingsReader
    return yield* r.list(caller, { entity_type: "protocol", categories: [], skip: 0, limit: 50, ...extra })
  })

/**
 * The stores with the scorecard store answering one combined read as a
 * store that reads things together would (Postgres does): the reader must
 * give the same answers through it as through the reads in turn.
 */
const readsTogether = <A, E>(
  stores: Layer.Layer<A, E>,
  combined: (
    entities: EntityRepository["Service"],
    scorecards: ScorecardRepository["Service"]
  ) => Partial<ScorecardRepository["Service"]>
) =>
  Layer.effect(
    ScorecardRepository,
    Effect.gen(function* () {
      const entities = yield* EntityRepository
      const scorecards = yield* ScorecardRepository
      return ScorecardRepository.of({ ...scorecards, ...combined(entities, scorecards) })
    })
  ).pipe(Layer.provideMerge(stores))

describe("RatingsReader", () => {
  it.effect("lists hide records where is_private is true or is_active is false", () =>
    Effect.gen(function* () {
      const page = yield* list(anonymous)
      assert.deepStrictEqual(
        page.items.map((r) => r.slug),
        ["aave-v3"]
      )
      assert.strictEqual(page.total, 1)
    }).pipe(Effect.provide(layer))
  )

  it.effect("non-admins never see draft, scoring or approved entities in lists or on detail; admins do", () =>
    Effect.gen(function* () {
      const r = yield* RatingsReader
      const unpublished = ["draft-protocol", "scoring-protocol", "approved-protocol"]
      for (const c of [anonymous, free, pro, enterprise]) {
        const page = yield* list(c, { include_inactive: true })
        const listed = page.items.map((e) => e.slug)
        for (const slug of unpublished) assert.notInclude(listed, slug)
        assert.strictEqual(page.total, 1)
        const searched = yield* r.list(c, {
          entity_type: "protocol",
          categories: [],
          skip: 0,
          limit: 50,
          search: "protocol",
          status: "draft"
        })
        assert.deepStrictEqual(searched, { items: [], total: 0 })
        for (const slug of unpublished) {
          const unknown = yield* Effect.flip(r.detail(c, "protocol", "no-such-protocol", true))
          assert.deepStrictEqual(yield* Effect.flip(r.detail(c, "protocol", slug, true)), unknown)
        }
        const byId = yield* Effect.flip(r.detail(c, "protocol", draft.record.id, false))
        assert.strictEqual(byId._tag, "NotFound")
      }
      const adminPage = yield* list(admin)
      assert.deepStrictEqual(
        adminPage.items.map((e) => e.slug),
        ["aave-v3", "approved-protocol", "draft-protocol", "scoring-protocol"]
      )
      for (const slug of unpublished)
        assert.strictEqual((yield* r.detail(admin, "protocol", slug, false)).slug, slug)
      assert.strictEqual((yield* r.detail(admin, "protocol", draft.record.id, false)).slug, "draft-protocol")
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "include_inactive shows inactive records to an admin and is silently ignored for anyone else",
    () =>
      Effect.gen(function* () {
        assert.include(
          (yield* list(admin, { include_inactive: true })).items.map((r) => r.slug),
          "retired-protocol"
        )
        assert.notInclude(
          (yield* list(enterprise, { include_inactive: true })).items.map((r) => r.slug),
          "retired-protocol"
        )
      }).pipe(Effect.provide(layer))
  )

  it.effect("detail accepts the UUID id or the slug, and 404s private or inactive records", () =>
    Effect.gen(function* () {
      const r = yield* RatingsReader
      assert.strictEqual((yield* r.detail(anonymous, "protocol", aave.record.id, false)).slug, "aave-v3")
      assert.strictEqual((yield* r.detail(anonymous, "protocol", "aave-v3", false)).id, aave.record.id)
      for (const slug of ["hidden-protocol", "retired-protocol", "no-such-protocol"]) {
        const e = yield* Effect.flip(r.detail(anonymous, "protocol", slug, false))
        assert.strictEqual(e._tag, "NotFound")
      }
      assert.strictEqual(
        (yield* r.detail(admin, "protocol", "retired-protocol", true)).slug,
        "retired-protocol"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "scorecard list: anonymous and Free get the latest published only, with domain_scores and mvc_gates null",
    () =>
      Effect.gen(function* () {
        const r = yield* RatingsReader
        for (const c of [anonymous, free]) {
          const page = yield* r.scorecards(c, "chain", "ethereum")
          assert.strictEqual(page.total, 1)
          assert.isNull(page.items[0]!.domain_scores)
          assert.isNull(page.items[0]!.mvc_gates)
        }
      }).pipe(Effect.provide(layer))
  )

  it.effect("scorecard list: Pro and Enterprise get the full version history, by id or slug", () =>
    Effect.gen(function* () {
      const r = yield* RatingsReader
      for (const id of [aave.record.id, "aave-v3"]) {
        const page = yield* r.scorecards(pro, "protocol", id)
        assert.deepStrictEqual(
          page.items.map((s) => s.scorecard_version),
          [2, 1]
        )
      }
      const chain = yield* r.scorecards(enterprise, "chain", "ethereum")
      assert.deepStrictEqual(chain.items[0]!.mvc_gates, { finality: true })
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "non-published entities resolve to 404 on scorecard routes for non-admin callers, like an unknown slug",
    () =>
      Effect.gen(function* () {
        const r = yield* RatingsReader
        for (const c of [anonymous, free, pro, enterprise]) {
          const e = yield* Effect.flip(r.scorecards(c, "protocol", "draft-protocol"))
          const unknown = yield* Effect.flip(r.scorecards(c, "protocol", "no-such-slug"))
          assert.deepStrictEqual(e, unknown)
          const q = yield* Effect.flip(r.questions(enterprise, "protocol", "draft-protocol"))
          assert.strictEqual(q._tag, "NotFound")
        }
        assert.strictEqual((yield* r.scorecards(admin, "protocol", "draft-protocol")).total, 1)
      }).pipe(Effect.provide(layer))
  )

  it.effect("domains and history are Pro: no key is missing_key, Free is insufficient", () =>
    Effect.gen(function* () {
      const r = yield* RatingsReader
      assert.strictEqual((yield* Effect.flip(r.domains(anonymous, "protocol", "aave-v3")))._tag, "MissingKey")
      assert.strictEqual(
        (yield* Effect.flip(r.history(free, "protocol", "aave-v3")))._tag,
        "InsufficientTier"
      )
      const d = yield* r.domains(pro, "protocol", "aave-v3")
      assert.deepStrictEqual(d.entity, { slug: "aave-v3", name: "Aave V3" })
      assert.deepStrictEqual(d.domain_scores, { security: 0.8 })
      const h = yield* r.history(pro, "protocol", "aave-v3")
      assert.strictEqual(h.items[0]!.reasoning, "re-rated after the v3.1 audit")
    }).pipe(Effect.provide(layer))
  )

  it.effect("the tier is checked before the entity is looked up, so a gated route reveals nothing", () =>
    Effect.gen(function* () {
      const r = yield* RatingsReader
      assert.strictEqual(
        (yield* Effect.flip(r.questions(pro, "protocol", "no-such-slug")))._tag,
        "InsufficientTier"
      )
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "questions carry per-question weight, domain_weights, scorecard_version and scorecard_published_at",
    () =>
      Effect.gen(function* () {
        const r = yield* RatingsReader
        const q = yield* r.questions(enterprise, "protocol", "aave-v3")
        assert.strictEqual(q.scorecard_version, 2)
        assert.strictEqual(q.scorecard_published_at, T0)
        assert.deepStrictEqual(q.domain_weights, { security: 100 })
        assert.strictEqual(q.items[0]!.weight, 2)
        assert.strictEqual(q.items[0]!.rationale, "two audits")
        const rb = yield* r.rubric(enterprise, "protocol", "aave-v3")
        assert.deepStrictEqual(rb.items[0]!.criteria, [{ score: 5, description: "two audits" }])
        const ev = yield* r.evidence(enterprise, "protocol", "aave-v3")
        assert.strictEqual(ev.items[0]!.reasoning, "audited")
        assert.strictEqual(ev.items[0]!.weight, 2)
      }).pipe(Effect.provide(layer))
  )

  it.effect(
    "bridge domains and history are empty until bridge scorecards exist; questions return all 62 with null scores",
    () =>
      Effect.gen(function* () {
        const r = yield* RatingsReader
        const d = yield* r.domains(pro, "bridge", "new-bridge")
        assert.deepStrictEqual(d.domain_scores, {})
        assert.isNull(d.composite_score)
        assert.strictEqual((yield* r.history(pro, "bridge", "new-bridge")).total, 0)
        const q = yield* r.questions(enterprise, "bridge", "new-bridge")
        assert.strictEqual(q.items.length, 62)
        assert.isTrue(q.items.every((i) => i.score === null))
        assert.isNull(q.scorecard_version)
        assert.strictEqual(
          Object.values(q.domain_weights).reduce((a, b) => a + b, 0),
          100
        )
      }).pipe(Effect.provide(layer))
  )

  it.effect(
    "scorecard by id is Enterprise, carries the full per-answer array, and never shows a draft to non-admins",
    () =>
      Effect.gen(function* () {
        const r = yield* RatingsReader
        const published = yield* r.scorecardById(enterprise, "protocol", aaveCards[1]!.id)
        assert.strictEqual(published.answers.length, 1)
        assert.isFalse("evidence" in published)
        assert.strictEqual(
          (yield* Effect.flip(r.scorecardById(enterprise, "protocol", aaveCards[2]!.id)))._tag,
          "NotFound"
        )
        assert.strictEqual(
          (yield* Effect.flip(r.scorecardById(enterprise, "chain", aaveCards[1]!.id)))._tag,
          "NotFound"
        )
        assert.strictEqual((yield* r.scorecardById(admin, "protocol", aaveCards[2]!.id)).status, "draft")
      }).pipe(Effect.provide(layer))
  )

  it.effect(
    "a public list or detail is one read of the store (with what its records may not name); an admin's reads the page or entity alone",
    () =>
      Effect.gen(function* () {
        const calls = yield* Ref.make<ReadonlyArray<string>>([])
        const counted = Layer.effect(
          EntityRepository,
          Effect.map(EntityRepository, (repo) => {
            // Every method, recorded by name when it is called.
            type Read = (...args: Array<unknown>) => Effect.Effect<unknown, unknown>
            const record =
              (name: string, f: Read): Read =>
              (...args) =>
                Effect.andThen(
                  Ref.update(calls, (c) => [...c, name]),
                  f(...args)
                )
            return Object.fromEntries(
              Object.entries(repo).map(([name, f]) => [name, record(name, f as Read)])
            ) as unknown as EntityRepository["Service"]
          })
        ).pipe(Layer.provide(EntityRepositoryMemory.layer([aave, eth, bridge])))
        const reader = RatingsReader.layer.pipe(
          Layer.provide(
            Layer.mergeAll(counted, ScorecardRepositoryMemory.layer(), RubricRepositoryMemory.layer())
          )
        )
        const readsOf = <A, E>(read: Effect.Effect<A, E, RatingsReader>) =>
          Effect.gen(function* () {
            yield* Ref.set(calls, [])
            yield* Effect.provide(read, reader)
            return yield* Ref.get(calls)
          })
        const detail = (caller: Caller, identifier: string) =>
          Effect.flatMap(RatingsReader, (r) => r.detail(caller, "protocol", identifier, false))
        assert.deepStrictEqual(yield* readsOf(detail(anonymous, "aave-v3")), ["findWithUnreadable"])
        assert.deepStrictEqual(yield* readsOf(detail(pro, aave.record.id)), ["findWithUnreadable"])
        assert.deepStrictEqual(yield* readsOf(list(free)), ["listWithUnreadable"])
        assert.deepStrictEqual(yield* readsOf(detail(admin, "aave-v3")), ["findBySlug"])
        assert.deepStrictEqual(yield* readsOf(detail(admin, aave.record.id)), ["findById"])
        assert.deepStrictEqual(yield* readsOf(list(admin)), ["list"])
      })
  )

  it.effect(
    "a store that reads an entity with its scorecards together gives the scorecard list the same answers, in one read",
    () =>
      Effect.gen(function* () {
        const draftChain = entity("chain", "draft-chain", { status: "draft" })
        const hinted = [
          scorecard(aave, 1, "superseded", { largest_drag_hint: "chain: ethereum" }),
          scorecard(aave, 2, "superseded", { largest_drag_hint: "chain: draft-chain" }),
          scorecard(aave, 3, "superseded", { largest_drag_hint: "oracle: missing" }),
          scorecard(aave, 4, "published", { largest_drag_hint: "not a hint" }),
          scorecard(aave, 5, "draft", { largest_drag_hint: "chain: draft-chain" })
        ]
        const stores = Layer.mergeAll(
          EntityRepositoryMemory.layer([aave, hidden, draft, eth, draftChain]),
          ScorecardRepositoryMemory.layer({ scorecards: [...hinted, ...draftCards] }),
          RubricRepositoryMemory.layer()
        )
        const calls = yield* Ref.make(0)
        // The reads together, as a store would answer them: the entity, its scorecards, the readable hints.
        const together = readsTogether(stores, (entities, scorecards) => ({
          entityWithScorecards: (type, by, identifier) =>
            Effect.gen(function* () {
              yield* Ref.update(calls, (n) => n + 1)
              const found = yield* by === "id"
                ? entities.findById(type, identifier)
                : entities.findBySlug(type, identifier)
              const cards = Option.isSome(found) ? yield* scorecards.listForEntity(type, found.value.id) : []
              const readableHints = new Set<string>()
              for (const card of cards) {
                const target =
                  card.largest_drag_hint === null ? undefined : dragHintTarget(card.largest_drag_hint)
                if (target === undefined) continue
                const named = yield* entities.findBySlug(target.entity_type, target.slug)
                if (Option.isSome(named) && isPubliclyReadable(named.value))
                  readableHints.add(card.largest_drag_hint!)
              }
              return { entity: found, scorecards: cards, readableHints }
            })
        }))
        const inTurn = RatingsReader.layer.pipe(Layer.provide(stores))
        const oneRead = RatingsReader.layer.pipe(Layer.provide(together))
        const answer = (caller: Caller, identifier: string) =>
          Effect.flatMap(RatingsReader, (r) => Effect.result(r.scorecards(caller, "protocol", identifier)))
        for (const caller of [anonymous, free, pro, enterprise, admin])
          for (const identifier of ["aave-v3", aave.record.id, "hidden-protocol", "draft-protocol", "nope"]) {
            const before = yield* Ref.get(calls)
            const expected = yield* Effect.provide(answer(caller, identifier), inTurn)
            assert.deepStrictEqual(yield* Effect.provide(answer(caller, identifier), oneRead), expected)
            assert.strictEqual((yield* Ref.get(calls)) - before, 1)
          }
        const served = yield* Effect.provide(answer(pro, "aave-v3"), oneRead)
        assert.deepStrictEqual(
          served._tag === "Success" ? served.success.items.map((s) => s.largest_drag_hint) : [],
          ["not a hint", "largest drag: oracle", "largest drag: chain", "chain: ethereum"]
        )
      })
  )

  it.effect(
    "a store that reads an entity with its history together gives the history the same answers, in one read",
    () =>
      Effect.gen(function* () {
        const calls = yield* Ref.make(0)
        const together = readsTogether(stores, (entities, scorecards) => ({
          entityWithHistory: (type, slug) =>
            Effect.gen(function* () {
              yield* Ref.update(calls, (n) => n + 1)
              const entity = yield* entities.findBySlug(type, slug)
              const history = Option.isSome(entity) ? yield* scorecards.history(type, entity.value.id) : []
              return { entity, history }
            })
        }))
        const inTurn = RatingsReader.layer.pipe(Layer.provide(stores))
        const oneRead = RatingsReader.layer.pipe(Layer.provide(together))
        const answer = (caller: Caller, slug: string) =>
          Effect.flatMap(RatingsReader, (r) => Effect.result(r.history(caller, "protocol", slug)))
        for (const caller of [anonymous, free, pro, enterprise, admin])
          for (const slug of ["aave-v3", "hidden-protocol", "draft-protocol", "nope"]) {
            const before = yield* Ref.get(calls)
            const expected = yield* Effect.provide(answer(caller, slug), inTurn)
            assert.deepStrictEqual(yield* Effect.provide(answer(caller, slug), oneRead), expected)
            // The tier is checked first: a refused caller reads nothing.
            assert.strictEqual(
              (yield* Ref.get(calls)) - before,
              expected._tag === "Failure" && expected.failure._tag !== "NotFound" ? 0 : 1
            )
          }
        const served = yield* Effect.provide(answer(pro, "aave-v3"), oneRead)
        assert.strictEqual(served._tag === "Success" ? served.success.items.length : 0, 1)
      })
  )

  it.effect(
    "a store that reads an entity with its latest published scorecard together gives domains, questions, rubric and evidence the same answers, in one read",
    () =>
      Effect.gen(function* () {
        const calls = yield* Ref.make(0)
        const together = readsTogether(stores, (entities, scorecards) => ({
          entityWithLatestPublished: (type, slug) =>
            Effect.gen(function* () {
              yield* Ref.update(calls, (n) => n + 1)
              const entity = yield* entities.findBySlug(type, slug)
              const latest = Option.isSome(entity)
                ? yield* scorecards.latest(type, entity.value.id, "published")
                : Option.none()
              return { entity, latest }
            })
        }))
        const inTurn = RatingsReader.layer.pipe(Layer.provide(stores))
        const oneRead = RatingsReader.layer.pipe(Layer.provide(together))
        const reads = ["domains", "questions", "rubric", "evidence"] as const
        const answer = (read: (typeof reads)[number], caller: Caller, slug: string) =>
          Effect.flatMap(RatingsReader, (r) => {
            const run = r[read] as (
              caller: Caller,
              type: "protocol",
              slug: string
            ) => Effect.Effect<unknown, { readonly _tag: string }>
            return Effect.result(run(caller, "protocol", slug))
          })
        for (const read of reads)
          for (const caller of [anonymous, free, pro, enterprise, admin])
            for (const slug of ["aave-v3", "hidden-protocol", "draft-protocol", "nope"]) {
              const before = yield* Ref.get(calls)
              const expected = yield* Effect.provide(answer(read, caller, slug), inTurn)
              assert.deepStrictEqual(yield* Effect.provide(answer(read, caller, slug), oneRead), expected)
              const refused = expected._tag === "Failure" && expected.failure._tag !== "NotFound"
              assert.strictEqual((yield* Ref.get(calls)) - before, refused ? 0 : 1)
            }
        const served = yield* Effect.provide(
          Effect.flatMap(RatingsReader, (r) => r.questions(enterprise, "protocol", "aave-v3")),
          oneRead
        )
        assert.strictEqual(served.scorecard_version, 2)
      })
  )

  it.effect(
    "methodology serves the grade ladder from the same table the core uses, and question counts",
    () =>
      Effect.gen(function* () {
        const m = yield* (yield* RatingsReader).methodology()
        assert.deepStrictEqual(
          m.grade_scale,
          GradeLadder.map((b) => ({ ...b }))
        )
        assert.strictEqual(m.entity_types.length, 7)
        assert.strictEqual(m.entity_types.find((t) => t.type === "bridge")!.questions, 62)
        assert.strictEqual(m.total_questions, 63)
      }).pipe(Effect.provide(layer))
  )

  it.effect(
    "methodology is published under the Branding in context: framework name, attribution, methodology URL",
    () =>
      Effect.gen(function* () {
        const branding = brandingOf({
          serviceName: "Acme",
          siteUrl: "https://acme.example",
          attribution: "By Acme."
        })
        const methodology = Effect.flatMap(RatingsReader, (r) => r.methodology())
        const m = yield* methodology.pipe(Effect.provide(layer), Effect.provide(Branding.layer(branding)))
        assert.strictEqual(m.name, "Acme Methodology")
        assert.strictEqual(m.attribution, "By Acme.")
        assert.strictEqual(m.methodology_url, "https://acme.example/methodology")
        const standard = yield* methodology.pipe(Effect.provide(layer))
        assert.strictEqual(standard.name, DefaultBranding.frameworkName)
        assert.strictEqual(standard.attribution, DefaultBranding.attribution)
        assert.strictEqual(standard.methodology_url, DefaultBranding.methodologyUrl)
      })
  )
})
