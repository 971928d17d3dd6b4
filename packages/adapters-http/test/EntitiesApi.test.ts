/**
 * The per-entity read routes over the real server: spec part 2 (types,
 * identifiers, visibility, records, scorecards), part 4 (per-entity
 * endpoints), part 5 (tier gating and the scorecard-list projection), part 7
 * (404, and a store failure as 503) and part 9 (the /api/v1 prefix), and a
 * leak test that walks every read route of every type as every caller. The
 * rules run on each backend (the in-memory stores and Postgres, both seeded
 * with the fixtures); the store-failure suite needs no backend.
 */
import { assert, describe, layer } from "@effect/vitest"
import type { Capability } from "@ratings/domain/access/Capabilities"
import { ListParameters } from "@ratings/domain/access/ListFilter"
import {
  type EntityType,
  EntityTypes,
  PluralOf,
  ScorecardByIdSegment
} from "@ratings/domain/model/EntityType"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { StoreError } from "@ratings/domain/ports/StoreError"
import { BridgeQuestionCount } from "@ratings/domain/scoring/BridgeRubric"
import { Effect, Layer, Option } from "effect"
import {
  type CallerName,
  CallerNames,
  cardsOf,
  entityId,
  type HiddenKind,
  HiddenKinds,
  hasKind,
  Seed,
  slugOf,
  UnpublishedKinds,
  uuid
} from "./fixtures.ts"
import { flagSets, holds, isVisible, UnknownCard, UnknownId, UnknownSlug } from "./HiddenRecords.ts"
import { MemoryFeeds, onEachBackend, type Response, type ServerIt, TestServer } from "./TestServer.ts"
import { ApiKeyRepositoryMemory } from "@ratings/domain/ports/memory/ApiKeyRepositoryMemory"
import { RubricRepositoryMemory } from "@ratings/domain/ports/memory/RubricRepositoryMemory"
import { ScorecardRepositoryMemory } from "@ratings/domain/ports/memory/ScorecardRepositoryMemory"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const get = (path: string, caller?: CallerName) =>
  Effect.gen(function* () {
    return yield* (yield* TestServer).get(path, { caller })
  })

const api = (path: string) => `/api/v1${path}`
const plural = (type: EntityType) => `/${PluralOf[type]}`
const slugs = (r: Response): ReadonlyArray<string> => (r.json as Json).items.map((x: Json) => x.slug)

const PerEntityRoutes = ["domains", "history", "questions", "rubric", "evidence"] as const

const perEntityRoutes = (it: ServerIt) =>
  describe("per-entity routes (spec parts 2 and 4)", () => {
    it.effect("every type has a list, a detail and a scorecard list under /api/v1, answering 200", () =>
      Effect.forEach(EntityTypes, (type) =>
        Effect.gen(function* () {
          const list = yield* get(api(plural(type)))
          assert.strictEqual(list.status, 200, type)
          assert.include(slugs(list), slugOf(type, "alpha"))
          const detail = yield* get(api(`${plural(type)}/${slugOf(type, "alpha")}`))
          assert.strictEqual((detail.json as Json).id, entityId(type, "alpha"))
          const cards = yield* get(api(`${plural(type)}/${slugOf(type, "alpha")}/scorecards`))
          assert.strictEqual((cards.json as Json).total, 1)
        })
      )
    )

    it.effect("detail and scorecard-list endpoints accept either the slug or the UUID id", () =>
      Effect.forEach(EntityTypes, (type) =>
        Effect.gen(function* () {
          const byId = yield* get(api(`${plural(type)}/${entityId(type, "alpha")}`))
          const bySlug = yield* get(api(`${plural(type)}/${slugOf(type, "alpha")}`))
          assert.strictEqual(byId.status, 200)
          assert.strictEqual(byId.text, bySlug.text)
          const cardsById = yield* get(api(`${plural(type)}/${entityId(type, "alpha")}/scorecards`))
          const cardsBySlug = yield* get(api(`${plural(type)}/${slugOf(type, "alpha")}/scorecards`))
          assert.strictEqual(cardsById.status, 200)
          assert.strictEqual(cardsById.text, cardsBySlug.text)
        })
      )
    )

    it.effect("a UUID parse is tried first: an unknown UUID is not looked up as a slug and answers 404", () =>
      Effect.gen(function* () {
        const r = yield* get(api(`/protocols/${uuid(424242)}`))
        assert.strictEqual(r.status, 404)
        assert.strictEqual(r.text, '{"detail":"not found"}')
      })
    )

    it.effect(
      "lists hide records where is_private is true or is_active is false; detail lookups return 404",
      () =>
        Effect.forEach(EntityTypes, (type) =>
          Effect.gen(function* () {
            const listed = slugs(yield* get(api(plural(type))))
            for (const kind of ["private", "retired"] as const) {
              assert.notInclude(listed, slugOf(type, kind), type)
              for (const identifier of [slugOf(type, kind), entityId(type, kind)]) {
                const r = yield* get(api(`${plural(type)}/${identifier}`))
                assert.strictEqual(r.status, 404, `${type} ${identifier}`)
                assert.strictEqual(r.text, '{"detail":"not found"}')
              }
            }
          })
        )
    )

    it.effect("per-entity data endpoints take the slug", () =>
      Effect.forEach(PerEntityRoutes, (route) =>
        Effect.gen(function* () {
          assert.strictEqual(
            (yield* get(api(`/tokens/token-alpha/${route}`), "enterprise")).status,
            200,
            route
          )
          assert.strictEqual(
            (yield* get(api(`/tokens/${entityId("token", "alpha")}/${route}`), "enterprise")).status,
            404
          )
        })
      )
    )

    it.effect(
      "each type's detail returns its own record schema (the token record, bridge security fields)",
      () =>
        Effect.gen(function* () {
          const token = (yield* get(api("/tokens/token-alpha"))).json as Json
          assert.strictEqual(token.symbol, "TALPHA")
          assert.deepStrictEqual(token.chain, { slug: "ethereum", name: "Ethereum" })
          const bridge = (yield* get(api("/bridges/bridge-alpha"))).json as Json
          assert.strictEqual(bridge.signer_count, 13)
          assert.strictEqual(bridge.signing_threshold, 9)
          assert.strictEqual(bridge.has_message_attestation, true)
          assert.isString(bridge.pause_mechanism)
          assert.deepStrictEqual(Object.keys(bridge.validator_set_owner).sort(), ["id", "name", "slug"])
          const listed = ((yield* get(api("/bridges"))).json as Json).items.find(
            (b: Json) => b.slug === "bridge-beta"
          )
          assert.strictEqual(
            listed.signer_count,
            null,
            "null signer fields are a design fact, served as null"
          )
          const vault = (yield* get(api("/vaults/vault-alpha"))).json as Json
          assert.strictEqual(vault.curator_id, entityId("organisation", "alpha"))
        })
    )

    it.effect("external_ids passes through, with <provider>_note keys and no grade on records", () =>
      Effect.gen(function* () {
        const record = (yield* get(api("/oracles/oracle-alpha"))).json as Json
        assert.deepStrictEqual(record.external_ids, {
          defillama: "oracle-alpha",
          coingecko_note: "no listing"
        })
        assert.notProperty(record, "grade")
      })
    )

    it.effect("an unrated entity's scorecard list is {items: [], total: 0}", () =>
      Effect.gen(function* () {
        const r = yield* get(api("/protocols/protocol-beta/scorecards"))
        assert.deepStrictEqual(r.json, { items: [], total: 0 })
      })
    )

    it.effect("mvc_gates is populated for chains only; other types return null", () =>
      Effect.forEach(EntityTypes, (type) =>
        Effect.gen(function* () {
          const cards = (yield* get(api(`${plural(type)}/${slugOf(type, "alpha")}/scorecards`), "pro"))
            .json as Json
          for (const card of cards.items) {
            if (type === "chain") assert.isObject(card.mvc_gates)
            else assert.isNull(card.mvc_gates, type)
          }
        })
      )
    )

    it.effect(
      "the scorecard-by-id path of each type serves one scorecard with the full per-answer array",
      () =>
        Effect.forEach(EntityTypes, (type) =>
          Effect.gen(function* () {
            const card = cardsOf(type, "alpha").find((c) => c.status === "published")!
            const r = yield* get(api(`/${ScorecardByIdSegment[type]}/${card.id}`), "enterprise")
            assert.strictEqual(r.status, 200, type)
            const body = r.json as Json
            assert.strictEqual(body.id, card.id)
            assert.strictEqual(body.answers.length, card.answers.length)
            assert.deepStrictEqual(body.domain_weights, card.domain_weights)
            assert.notProperty(body, "evidence")
          })
        )
    )

    it.effect("a scorecard id answers 404 on another type's scorecard-by-id path", () =>
      Effect.gen(function* () {
        const card = cardsOf("protocol", "alpha")[0]!
        const r = yield* get(api(`/token-scorecards/${card.id}`), "enterprise")
        assert.strictEqual(r.status, 404)
      })
    )

    it.effect(
      "questions carry per-question weight, domain_weights, scorecard_version and scorecard_published_at",
      () =>
        Effect.gen(function* () {
          const body = (yield* get(api("/protocols/protocol-alpha/questions"), "enterprise")).json as Json
          assert.strictEqual(body.scorecard_version, 2)
          // The instant, not its spelling: Postgres serves timestamps back in UTC with milliseconds.
          assert.strictEqual(Date.parse(body.scorecard_published_at), Date.parse("2026-08-01T00:00:00+00:00"))
          assert.deepStrictEqual(body.domain_weights, cardsOf("protocol", "alpha")[1]!.domain_weights)
          assert.deepStrictEqual(
            body.items.map((q: Json) => [q.question_id, q.weight, q.score]),
            [
              ["PROTOCOL-SEC-01", 2, 3],
              ["PROTOCOL-SEC-02", 1, null]
            ]
          )
        })
    )

    it.effect("rubric and evidence carry per-question weight and domain_weights", () =>
      Effect.gen(function* () {
        for (const route of ["rubric", "evidence"]) {
          const body = (yield* get(api(`/chains/chain-alpha/${route}`), "enterprise")).json as Json
          assert.deepStrictEqual(Object.keys(body.domain_weights).length > 0, true, route)
          for (const item of body.items) assert.isNumber(item.weight, route)
        }
        const evidence = (yield* get(api("/chains/chain-alpha/evidence"), "enterprise")).json as Json
        assert.strictEqual(evidence.items[0].evidence[0].kind, "audit")
        const rubric = (yield* get(api("/chains/chain-alpha/rubric"), "enterprise")).json as Json
        assert.strictEqual(rubric.items[0].criteria.length, 2)
      })
    )

    it.effect("bridge domains and history return empty data until bridge scorecards exist", () =>
      Effect.gen(function* () {
        const domains = (yield* get(api("/bridges/bridge-beta/domains"), "pro")).json as Json
        assert.deepStrictEqual(domains.domain_scores, {})
        assert.isNull(domains.composite_score)
        assert.isNull(domains.grade)
        const history = (yield* get(api("/bridges/bridge-beta/history"), "pro")).json as Json
        assert.deepStrictEqual([history.items, history.total], [[], 0])
      })
    )

    it.effect(
      "bridge questions return all 62 questions with null scores before a bridge scorecard exists",
      () =>
        Effect.gen(function* () {
          const body = (yield* get(api("/bridges/bridge-beta/questions"), "enterprise")).json as Json
          assert.strictEqual(body.items.length, BridgeQuestionCount)
          assert.isTrue(body.items.every((q: Json) => q.score === null))
          assert.isNull(body.scorecard_version)
        })
    )

    it.effect("history is the full rating history with reasoning, newest first", () =>
      Effect.gen(function* () {
        const body = (yield* get(api("/tokens/token-alpha/history"), "pro")).json as Json
        assert.deepStrictEqual(
          body.items.map((h: Json) => [h.scorecard_version, h.reasoning]),
          [
            [2, "Re-rated after the second audit"],
            [1, "First rating"]
          ]
        )
      })
    )

    it.effect("the API path prefix is /api/v1: the same paths without it do not exist", () =>
      Effect.gen(function* () {
        assert.strictEqual((yield* get("/protocols")).status, 404)
        assert.strictEqual((yield* get("/api/v2/protocols")).status, 404)
        assert.strictEqual((yield* get("/api/v1/protocols")).status, 200)
      })
    )
  })

const accessTiers = (it: ServerIt) =>
  describe("access tiers (spec part 5)", () => {
    it.effect("public endpoints need no credentials", () =>
      Effect.forEach(
        ["/protocols", "/protocols/protocol-alpha", "/protocols/protocol-alpha/scorecards"],
        (path) => Effect.map(get(api(path)), (r) => assert.strictEqual(r.status, 200, path))
      )
    )

    it.effect(
      "Pro routes (domains, history): 401 missing_key without a key, 403 for Free, 200 from Pro up",
      () =>
        Effect.forEach(["domains", "history"], (route) =>
          Effect.gen(function* () {
            const path = api(`/oracles/oracle-alpha/${route}`)
            const anonymous = yield* get(path)
            assert.strictEqual(anonymous.status, 401)
            assert.deepStrictEqual(anonymous.json, { detail: { error: "missing_key" } })
            const free = yield* get(path, "free")
            assert.strictEqual(free.status, 403)
            assert.deepStrictEqual(free.json, {
              detail: { error: "insufficient_tier", required_tier: "pro", tier: "free" }
            })
            for (const caller of ["pro", "enterprise", "admin"] as const) {
              assert.strictEqual((yield* get(path, caller)).status, 200, `${route} as ${caller}`)
            }
          })
        )
    )

    it.effect(
      "Enterprise routes (questions, rubric, evidence, scorecard by id): 401 anonymous, 403 Free and Pro",
      () =>
        Effect.gen(function* () {
          const card = cardsOf("vault", "alpha")[1]!
          const paths = [
            ...["questions", "rubric", "evidence"].map((r) => api(`/vaults/vault-alpha/${r}`)),
            api(`/vault-scorecards/${card.id}`)
          ]
          for (const path of paths) {
            assert.strictEqual((yield* get(path)).status, 401, path)
            for (const caller of ["free", "pro"] as const) {
              const r = yield* get(path, caller)
              assert.strictEqual(r.status, 403, path)
              assert.strictEqual((r.json as Json).detail.required_tier, "enterprise")
            }
            for (const caller of ["enterprise", "admin"] as const) {
              assert.strictEqual((yield* get(path, caller)).status, 200, `${path} as ${caller}`)
            }
          }
        })
    )

    it.effect("a gated route checks the tier before the lookup, so an unknown slug reveals nothing", () =>
      Effect.gen(function* () {
        const known = yield* get(api("/protocols/protocol-alpha/questions"), "pro")
        const unknown = yield* get(api("/protocols/no-such-protocol/questions"), "pro")
        assert.strictEqual(known.status, 403)
        assert.strictEqual(known.text, unknown.text)
      })
    )

    it.effect(
      "anonymous and Free get the latest published scorecard only, with domain_scores and mvc_gates null",
      () =>
        Effect.forEach(["anonymous", "free"] as const, (caller) =>
          Effect.gen(function* () {
            const body = (yield* get(api("/chains/chain-alpha/scorecards"), caller)).json as Json
            assert.strictEqual(body.total, 1)
            assert.strictEqual(body.items[0].scorecard_version, 2)
            assert.strictEqual(body.items[0].status, "published")
            assert.isNull(body.items[0].domain_scores)
            assert.isNull(body.items[0].mvc_gates)
            assert.notProperty(body.items[0], "answers")
          })
        )
    )

    it.effect("Pro and Enterprise get the full published version history, newest first, never a draft", () =>
      Effect.forEach(["pro", "enterprise"] as const, (caller) =>
        Effect.gen(function* () {
          const body = (yield* get(api("/chains/chain-alpha/scorecards"), caller)).json as Json
          assert.deepStrictEqual(
            body.items.map((c: Json) => [c.scorecard_version, c.status]),
            [
              [2, "published"],
              [1, "superseded"]
            ]
          )
          assert.deepStrictEqual(body.items[0].domain_scores, { security: 0.75 })
          assert.isObject(body.items[0].mvc_gates)
        })
      )
    )

    it.effect("admin bypass: include_inactive=true shows inactive records on detail to an admin only", () =>
      Effect.gen(function* () {
        const path = api("/protocols/protocol-retired?include_inactive=true")
        assert.strictEqual((yield* get(path, "admin")).status, 200)
        for (const caller of ["anonymous", "free", "pro", "enterprise"] as const) {
          assert.strictEqual((yield* get(path, caller)).status, 404, caller)
        }
        assert.strictEqual((yield* get(api("/protocols/protocol-retired"), "admin")).status, 404)
      })
    )

    it.effect("non-published entities resolve to 404 on scorecard routes for non-admin callers", () =>
      Effect.gen(function* () {
        for (const caller of ["anonymous", "free", "pro", "enterprise"] as const) {
          const r = yield* get(api("/tokens/token-draft/scorecards"), caller)
          assert.strictEqual(r.status, 404, caller)
          assert.deepStrictEqual(r.json, { detail: "not found" })
        }
        assert.strictEqual((yield* get(api("/tokens/token-draft/scorecards"), "admin")).status, 200)
      })
    )
  })

/** Same status, same body, same content type: nothing tells the two apart. */
const assertAlike = (hidden: Response, unknown: Response, what: string) => {
  assert.strictEqual(hidden.status, unknown.status, what)
  assert.strictEqual(hidden.text, unknown.text, what)
  assert.strictEqual(hidden.headers.get("content-type"), unknown.headers.get("content-type"), what)
}

const queryOf = (flags: { readonly include_inactive: boolean; readonly include_frameworks: boolean }) =>
  `?include_inactive=${flags.include_inactive}&include_frameworks=${flags.include_frameworks}`

/**
 * What a server answers a caller for an unknown identifier, asked once per
 * server, caller and path: every hidden record of a type is held against the
 * same answer, and asking again for each would only double the walk.
 */
const unknownAnswers = new Map<string, Response>()
const getUnknown = (path: string, caller: CallerName) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    const key = `${server.baseUrl} ${caller} ${path}`
    const known = unknownAnswers.get(key)
    if (known !== undefined) return known
    const answer = yield* server.get(path, { caller })
    unknownAnswers.set(key, answer)
    return answer
  })

const walkOne = (caller: CallerName, type: EntityType, kind: HiddenKind) =>
  Effect.gen(function* () {
    const slug = slugOf(type, kind)
    const id = entityId(type, kind)
    const base = api(plural(type))
    const where = (route: string) => `${route} (${type} ${kind} as ${caller})`

    for (const flags of flagSets(type)) {
      const listed = yield* get(base + queryOf(flags), caller)
      const shown = isVisible(kind, "list", caller, flags)
      assert.strictEqual(listed.text.includes(`"${slug}"`), shown, where(`list ${queryOf(flags)}`))
      assert.strictEqual(listed.text.includes(id), shown, where(`list ${queryOf(flags)}`))
      if (!shown) {
        const searched = yield* get(`${base}${queryOf(flags)}&search=${slug}`, caller)
        const nothing = yield* getUnknown(`${base}${queryOf(flags)}&search=${UnknownSlug}`, caller)
        assertAlike(searched, nothing, where("search"))
      }
      for (const [identifier, unknown] of [
        [slug, UnknownSlug],
        [id, UnknownId]
      ] as const) {
        const detail = yield* get(`${base}/${identifier}${queryOf(flags)}`, caller)
        if (isVisible(kind, "detail", caller, flags)) assert.strictEqual(detail.status, 200, where("detail"))
        else
          assertAlike(
            detail,
            yield* getUnknown(`${base}/${unknown}${queryOf(flags)}`, caller),
            where("detail")
          )
      }
    }

    const scorecardRoutes: ReadonlyArray<readonly [string, string, Capability]> = [
      [`${base}/${slug}/scorecards`, `${base}/${UnknownSlug}/scorecards`, "scorecards"],
      [`${base}/${id}/scorecards`, `${base}/${UnknownId}/scorecards`, "scorecards"],
      ...PerEntityRoutes.map((r) => [`${base}/${slug}/${r}`, `${base}/${UnknownSlug}/${r}`, r] as const),
      ...cardsOf(type, kind).map(
        (c) =>
          [
            api(`/${ScorecardByIdSegment[type]}/${c.id}`),
            api(`/${ScorecardByIdSegment[type]}/${UnknownCard}`),
            "scorecard_by_id"
          ] as const
      )
    ]
    for (const [path, unknownPath, capability] of scorecardRoutes) {
      const r = yield* get(path, caller)
      if (isVisible(kind, "scorecards", caller, flagSets(type)[0]) && holds(caller, capability)) {
        assert.strictEqual(r.status, 200, where(path))
      } else {
        assertAlike(r, yield* getUnknown(unknownPath, caller), where(path))
      }
    }
  })

const leakTest = (it: ServerIt) =>
  describe("leak test", () => {
    it.effect(
      "private, inactive, unpublished (draft, scoring, approved) and framework-tier records never show where hidden, and answer exactly like an unknown slug",
      () =>
        Effect.forEach(
          CallerNames.flatMap((caller) =>
            EntityTypes.flatMap((type) =>
              HiddenKinds.filter((kind) => hasKind(type, kind)).map((kind) => [caller, type, kind] as const)
            )
          ),
          ([caller, type, kind]) => walkOne(caller, type, kind),
          { concurrency: 8, discard: true }
        ),
      { timeout: 120_000 }
    )

    it.effect(
      "non-admins never see draft, scoring or approved entities in lists or on detail; admins do",
      () =>
        Effect.forEach(EntityTypes, (type) =>
          Effect.gen(function* () {
            for (const caller of ["anonymous", "free", "pro", "enterprise"] as const) {
              const listed = yield* get(
                api(`${plural(type)}?include_inactive=true&include_frameworks=true`),
                caller
              )
              for (const kind of UnpublishedKinds) {
                const what = `${type} ${kind} as ${caller}`
                assert.notInclude(slugs(listed), slugOf(type, kind), what)
                for (const identifier of [slugOf(type, kind), entityId(type, kind)]) {
                  const detail = yield* get(
                    api(`${plural(type)}/${identifier}?include_inactive=true`),
                    caller
                  )
                  assert.strictEqual(detail.status, 404, `${what} (${identifier})`)
                }
                if (ListParameters[type].includes("status")) {
                  const byStatus = yield* get(api(`${plural(type)}?status=${kind}`), caller)
                  assert.deepStrictEqual(byStatus.json, { items: [], total: 0 }, what)
                }
              }
            }
            const admin = slugs(yield* get(api(plural(type)), "admin"))
            for (const kind of UnpublishedKinds) {
              assert.include(admin, slugOf(type, kind), `${type} ${kind} as admin`)
              const detail = yield* get(api(`${plural(type)}/${entityId(type, kind)}`), "admin")
              assert.strictEqual(detail.status, 200, `${type} ${kind} as admin`)
              assert.strictEqual((detail.json as Json).status, kind)
            }
          })
        )
    )

    it.effect(
      "a bridge's validator_set_owner is an organisation not yet published: its id and slug do not yet resolve under /organisations",
      () =>
        Effect.gen(function* () {
          const owner = ((yield* get(api("/bridges/bridge-alpha"))).json as Json).validator_set_owner
          assert.deepStrictEqual(owner.id, entityId("organisation", "draft"))
          for (const caller of ["anonymous", "free", "pro", "enterprise"] as const) {
            assert.notInclude(slugs(yield* get(api("/organisations"), caller)), owner.slug, caller)
            assertAlike(
              yield* get(api(`/organisations/${owner.slug}`), caller),
              yield* get(api(`/organisations/${UnknownSlug}`), caller),
              `slug as ${caller}`
            )
            assertAlike(
              yield* get(api(`/organisations/${owner.id}`), caller),
              yield* get(api(`/organisations/${UnknownId}`), caller),
              `id as ${caller}`
            )
          }
          assert.strictEqual((yield* get(api(`/organisations/${owner.slug}`), "admin")).status, 200)
        })
    )

    it.effect("a draft scorecard of a published entity never shows to non-admins, by list or by id", () =>
      Effect.forEach(EntityTypes, (type) =>
        Effect.gen(function* () {
          const draft = cardsOf(type, "alpha").find((c) => c.status === "draft")!
          const byId = api(`/${ScorecardByIdSegment[type]}/${draft.id}`)
          for (const caller of ["anonymous", "free", "pro", "enterprise"] as const) {
            const list = yield* get(api(`${plural(type)}/${slugOf(type, "alpha")}/scorecards`), caller)
            assert.notInclude(list.text, draft.id, `${type} as ${caller}`)
            assertAlike(
              yield* get(byId, caller),
              yield* get(api(`/${ScorecardByIdSegment[type]}/${UnknownCard}`), caller),
              `${type} as ${caller}`
            )
          }
          assert.include(
            (yield* get(api(`${plural(type)}/${slugOf(type, "alpha")}/scorecards`), "admin")).text,
            draft.id
          )
          assert.strictEqual((yield* get(byId, "admin")).status, 200)
        })
      )
    )
  })

/**
 * The leak walk of coverage requests (POST /contacts): every caller kind
 * asks for the same entity from its own address, then repeats the request
 * (another case, another message). Each answer holds its requester's own
 * submission and nothing of anyone else's: no other address, message or id,
 * not even the id of its own earlier request.
 */
const contactLeakWalk = (it: ServerIt) =>
  describe("leak test: coverage requests", () => {
    it.effect(
      "a coverage request's receipt shows only its requester's own submission: never another requester's address, message or id, nor an earlier submission's id, as any caller, new or repeated",
      () =>
        Effect.gen(function* () {
          const server = yield* TestServer
          const run = crypto.randomUUID().slice(0, 8)
          const entity = `Leak Walk ${run}`
          const requesters = CallerNames.map((caller, i) => ({
            caller,
            email: `requester${i}.${run}@example.com`,
            note: `private note of requester ${i} ${run}`
          }))
          const answers: Array<{ readonly who: number; readonly round: number; readonly r: Response }> = []
          for (const round of [1, 2])
            for (const [who, requester] of requesters.entries()) {
              const r = yield* server.request(api("/contacts"), {
                method: "POST",
                caller: requester.caller,
                body: {
                  protocol_name: round === 1 ? entity : ` ${entity.toUpperCase()} `,
                  contact_email: round === 1 ? requester.email : requester.email.toUpperCase(),
                  message: `${requester.note} (round ${round})`
                }
              })
              assert.strictEqual(r.status, 201, `${requester.caller} round ${round}: ${r.text}`)
              answers.push({ who, round, r })
            }
          const ids = answers.map((a) => (a.r.json as Json).id as string)
          assert.strictEqual(new Set(ids).size, answers.length, "each submission its own reference id")
          for (const [i, { who, round, r }] of answers.entries()) {
            const where = `${requesters[who]!.caller} round ${round}`
            const text = r.text.toLowerCase()
            const sentEmail = round === 1 ? requesters[who]!.email : requesters[who]!.email.toUpperCase()
            assert.strictEqual((r.json as Json).contact_email, sentEmail, `${where}: what it sent`)
            assert.notInclude(text, "private note", `${where}: no message is ever echoed`)
            for (const [j, id] of ids.entries())
              if (j !== i) assert.notInclude(r.text, id, `${where} shows another submission's id`)
            for (const [other, o] of requesters.entries()) {
              if (other === who) continue
              assert.notInclude(text, o.email.toLowerCase(), `${where} shows ${o.caller}'s address`)
            }
          }
        })
    )
  })

/** A value with every ISO instant in it spelt one way, for comparing what a store normalises. */
const instantsNormalised = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (_key, v) =>
    typeof v === "string" && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(v) ? new Date(v).toISOString() : v
  )

const seeded = (it: ServerIt) =>
  describe("the seeded stores", () => {
    it.effect("every fixture entity, scorecard and history entry reads back from the backend as seeded", () =>
      Effect.gen(function* () {
        const entities = yield* EntityRepository
        const scorecards = yield* ScorecardRepository
        for (const { entity_type, record } of Seed.entities) {
          const stored = yield* entities.findById(entity_type, record.id)
          assert.deepStrictEqual(instantsNormalised(Option.getOrThrow(stored)), instantsNormalised(record))
        }
        for (const card of Seed.scorecards) {
          const stored = yield* scorecards.findById(card.entity_type, card.id)
          assert.deepStrictEqual(instantsNormalised(Option.getOrThrow(stored)), instantsNormalised(card))
        }
        for (const { entity_type, record } of Seed.entities) {
          const expected = Seed.history
            .filter((h) => h.entity_id === record.id)
            .sort((a, b) => b.scorecard_version - a.scorecard_version)
            .map(({ entity_id: _, ...entry }) => entry)
          const stored = yield* scorecards.history(entity_type, record.id)
          assert.deepStrictEqual(instantsNormalised(stored), instantsNormalised(expected), record.slug)
        }
      })
    )
  })

onEachBackend((it) => {
  seeded(it)
  perEntityRoutes(it)
  accessTiers(it)
  leakTest(it)
  contactLeakWalk(it)
})

const failing = new StoreError({ message: "connect ECONNREFUSED 10.9.8.7:5432 (ratings_db)" })

const FailingStores = MemoryFeeds.pipe(
  Layer.provideMerge(
    Layer.mergeAll(
      Layer.succeed(
        EntityRepository,
        EntityRepository.of({
          list: () => Effect.fail(failing),
          findById: () => Effect.fail(failing),
          findBySlug: () => Effect.fail(failing),
          findMany: () => Effect.fail(failing),
          published: () => Effect.fail(failing),
          countPublished: () => Effect.fail(failing),
          all: () => Effect.fail(failing),
          unreadable: () => Effect.fail(failing),
          findWithUnreadable: () => Effect.fail(failing),
          listWithUnreadable: () => Effect.fail(failing),
          upsert: () => Effect.fail(failing),
          setStatus: () => Effect.fail(failing)
        })
      ),
      ScorecardRepositoryMemory.layer(),
      RubricRepositoryMemory.layer(),
      ApiKeyRepositoryMemory.layer
    )
  )
)

layer(TestServer.layer(FailingStores), { excludeTestServices: true })("store failure (spec part 7)", (it) => {
  it.effect(
    "a store failure answers 503 with a body that says the service is unavailable, and nothing else",
    () =>
      Effect.forEach(
        [api("/protocols"), api("/protocols/protocol-alpha"), api("/tokens/token-alpha/scorecards")],
        (path) =>
          Effect.gen(function* () {
            const r = yield* get(path, "enterprise")
            assert.strictEqual(r.status, 503, path)
            assert.deepStrictEqual(r.json, { detail: "service unavailable" })
            assert.notInclude(r.text, "ECONNREFUSED")
          })
      )
  )

  it.effect("bad input is still a 422 while the store is down (decoding comes first)", () =>
    Effect.map(get(api("/protocols?limit=500")), (r) => assert.strictEqual(r.status, 422))
  )
})
