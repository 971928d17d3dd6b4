/**
 * Issue 13 point 4 (docs/adr/0003-access-and-lists.md, "References to hidden
 * entities"): a public record names no entity the public may not know of. The
 * briefs of chains the public cannot read (not published, private, inactive)
 * are left out of `chains`, `?chain=` by such a chain answers like an unknown
 * chain, and a bridge's validator_set_owner is null when that organisation is
 * private or inactive (an unpublished owner stays, as spec part 2 allows).
 * A vault's curator and curator_id are null when the public cannot read that
 * organisation (not published, private, inactive), and `?curator_id=` by such
 * an organisation answers like an unknown one.
 * A scorecard's largest_drag_hint names its dependency only while the public
 * can read it; otherwise it gives the type alone ("largest drag: <type>"), on
 * every route that serves it, and a cached scorecard list follows a change of
 * that dependency's readability on the next request (Postgres, with the
 * production version check). An incident whose matched protocol the public
 * can no longer read is served unmatched, and `?slug=` by it answers like an
 * unknown slug.
 * Admins see records as stored. On both backends.
 */
import { assert, describe, layer } from "@effect/vitest"
import * as PgCacheInvalidation from "@ratings/adapters-sql/PgCacheInvalidation"
import { type EntityType, ScorecardByIdSegment } from "@ratings/domain/model/EntityType"
import { EntityRepository, type StoredEntity } from "@ratings/domain/ports/EntityRepository"
import type { HistoryEntryRecord, StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { defaultDomainWeights } from "@ratings/domain/scoring/ScoreEntity"
import { Effect, Layer } from "effect"
import { ResponseCache } from "../src/server/cache/ResponseCache.ts"
import type { CallerName, Seed } from "./fixtures.ts"
import { database, onEachBackend, TestServer } from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: response bodies are probed field by field in assertions
type Json = { readonly [key: string]: any }

const T0 = "2026-06-01T00:00:00+00:00"
let n = 0
const id = () => `00000000-0000-4000-8000-${(0xd000 + ++n).toString(16).padStart(12, "0")}`

const record = (type: EntityType, slug: string, over: Record<string, unknown> = {}): StoredEntity => {
  const own: Record<string, unknown> =
    type === "bridge"
      ? {
          signer_count: null,
          signing_threshold: null,
          has_message_attestation: false,
          pause_mechanism: null,
          validator_set_owner: null
        }
      : type === "vault"
        ? { curator_id: null, curator: null, is_framework: false }
        : type === "token"
          ? { symbol: "TOK", chain: { slug: "open-chain", name: "Open" } }
          : {}
  return {
    entity_type: type,
    record: {
      id: id(),
      name: slug,
      slug,
      status: "published",
      categories: [],
      chains: [],
      urls: {},
      external_ids: {},
      description: null,
      is_active: true,
      is_private: false,
      created_at: T0,
      updated_at: T0,
      ...own,
      ...over
    } as never
  }
}

const open = record("chain", "open-chain")
const scoring = record("chain", "scoring-chain", { status: "scoring" })
const secret = record("chain", "secret-chain", { is_private: true })
const retired = record("chain", "retired-chain", { is_active: false })
const brief = (c: StoredEntity, withId = true) => ({
  ...(withId ? { id: c.record.id } : {}),
  slug: c.record.slug,
  name: c.record.name
})
const allBriefs = [brief(open), brief(scoring), brief(secret, false), brief(retired)]

const ownerDraft = record("organisation", "owner-draft", { status: "draft" })
const ownerSecret = record("organisation", "owner-secret", { is_private: true })
const ownerRetired = record("organisation", "owner-retired", { is_active: false })
const owner = (o: StoredEntity) => ({ id: o.record.id, slug: o.record.slug, name: o.record.name })

const curatorOpen = record("organisation", "curator-open")
const curatedBy = (o: StoredEntity) =>
  record("vault", `vault-by-${o.record.slug}`, { curator_id: o.record.id, curator: owner(o) })
const hiddenCurators = [ownerDraft, ownerSecret, ownerRetired]

const onChains = (EntityTypesWithChains: ReadonlyArray<EntityType>) =>
  EntityTypesWithChains.map((t) => record(t, `${t}-everywhere`, { chains: allBriefs }))

const WithChainFilter = ["protocol", "token", "oracle", "vault", "bridge"] as const

const openOracle = record("oracle", "open-oracle")
const draftOracle = record("oracle", "draft-oracle", { status: "draft" })

/** Scorecards whose largest drag is `hint`, and the hint a caller without the admin bypass reads. */
const DragCases = [
  { type: "protocol", hint: "chain: open-chain", served: "chain: open-chain" },
  { type: "protocol", hint: "chain: scoring-chain", served: "largest drag: chain" },
  { type: "protocol", hint: "chain: secret-chain", served: "largest drag: chain" },
  { type: "protocol", hint: "chain: retired-chain", served: "largest drag: chain" },
  { type: "protocol", hint: "chain: no-such-chain", served: "largest drag: chain" },
  { type: "vault", hint: "oracle: open-oracle", served: "oracle: open-oracle" },
  { type: "vault", hint: "oracle: draft-oracle", served: "largest drag: oracle" },
  { type: "token", hint: "largest drag: oracle", served: "largest drag: oracle" }
] as const

const T1 = "2026-07-01T00:00:00+00:00"

const card = (e: StoredEntity, version: number, hint: string): StoredScorecard => ({
  // A first version is superseded by the second; a lone second version is the rating.
  id: id(),
  entity_id: e.record.id,
  entity_type: e.entity_type,
  status: version === 1 ? "superseded" : "published",
  scorecard_version: version,
  grade: "BBB",
  letter_grade: "BBB",
  composite_score: 70 + version,
  intrinsic_composite_score: 80,
  intrinsic_letter_grade: "A",
  largest_drag_hint: hint,
  has_unrated_dependencies: false,
  domain_scores: { security: 0.75 },
  mvc_gates: null,
  last_rated_at: T1,
  scorecard_published_at: T1,
  domain_weights: defaultDomainWeights(e.entity_type, []),
  answers: [],
  dependencies: [],
  evidence: []
})

const historyOf = (c: StoredScorecard): HistoryEntryRecord & { readonly entity_id: string } => ({
  entity_id: c.entity_id,
  scorecard_id: c.id,
  scorecard_version: c.scorecard_version,
  grade: c.grade,
  letter_grade: c.letter_grade,
  composite_score: c.composite_score,
  intrinsic_composite_score: c.intrinsic_composite_score,
  intrinsic_letter_grade: c.intrinsic_letter_grade,
  published_at: T1,
  reasoning: "Rated"
})

/** Rated protocols that incidents match, hidden later by the test, each in its own way. */
const Hacked = ["hacked-draft", "hacked-private", "hacked-inactive"] as const
const hacked = Hacked.map((slug) => {
  const e = record("protocol", slug)
  return { entity: e, card: card(e, 2, "chain: open-chain") }
})

/** One entity per case, `dragged-<n>`, with two published versions (the first superseded) carrying the hint. */
const dragged = DragCases.map((c, i) => {
  const e = record(c.type, `dragged-${i}`)
  return { ...c, entity: e, cards: [card(e, 1, c.hint), card(e, 2, c.hint)] }
})

const seed: Seed = {
  entities: [
    open,
    scoring,
    secret,
    retired,
    ownerDraft,
    ownerSecret,
    ownerRetired,
    record("chain", "l2-chain", { chains: allBriefs }),
    ...onChains(["protocol", "oracle", "vault", "organisation", "bridge"]),
    record("token", "token-everywhere", { chains: allBriefs, chain: brief(scoring) }),
    record("bridge", "bridge-draft-owner", { validator_set_owner: owner(ownerDraft) }),
    record("bridge", "bridge-secret-owner", { validator_set_owner: owner(ownerSecret) }),
    record("bridge", "bridge-retired-owner", { validator_set_owner: owner(ownerRetired) }),
    curatorOpen,
    ...[curatorOpen, ...hiddenCurators].map(curatedBy),
    openOracle,
    draftOracle,
    ...dragged.map((d) => d.entity),
    ...hacked.map((h) => h.entity)
  ],
  scorecards: [...dragged.flatMap((d) => d.cards), ...hacked.map((h) => h.card)],
  history: [...dragged.flatMap((d) => d.cards.map(historyOf)), ...hacked.map((h) => historyOf(h.card))],
  questions: []
}

const get = (path: string, caller?: CallerName) =>
  Effect.flatMap(TestServer, (s) => s.get(`/api/v1${path}`, { caller }))

const Plural: Record<EntityType, string> = {
  protocol: "protocols",
  chain: "chains",
  token: "tokens",
  oracle: "oracles",
  vault: "vaults",
  organisation: "organisations",
  bridge: "bridges"
}

const NonAdmins = ["anonymous", "free", "pro", "enterprise"] as const

/** Two independent reports of a hack at `protocol`: the incident as served to the ingesting admin. */
const ingestTwice = (protocol: string) =>
  Effect.gen(function* () {
    const server = yield* TestServer
    let served: Json | null = null
    for (const handle of ["blockaid", "peckshield"]) {
      const r = yield* server.request("/api/v1/admin/incidents", {
        method: "POST",
        caller: "admin",
        body: {
          nonce: `${protocol}-${handle}`,
          protocol_name: protocol,
          chain: "ethereum",
          exploit_class: "REENTRANCY",
          loss_estimate_usd: 1_000_000,
          victim_addresses: [],
          source: { handle },
          claimed_tier: "rumored",
          first_seen_at: "2026-11-01T10:00:00Z"
        }
      })
      assert.strictEqual(r.status, 200, r.text)
      served = (r.json as Json).served
    }
    return served as Json
  })

onEachBackend(
  (it) =>
    describe("references to hidden entities (issue 13 point 4)", () => {
      it.effect(
        "records leave out the briefs of chains the public cannot read (scoring, private, inactive), in lists and on detail; admins see them as stored",
        () =>
          Effect.forEach(
            ["protocol", "oracle", "chain", "token", "vault", "organisation", "bridge"] as const,
            (type) =>
              Effect.gen(function* () {
                const slug = type === "chain" ? "l2-chain" : `${type}-everywhere`
                for (const caller of NonAdmins) {
                  const detail = (yield* get(`/${Plural[type]}/${slug}`, caller)).json as Json
                  assert.deepStrictEqual(detail.chains, [brief(open)], `${type} detail as ${caller}`)
                  const list = (yield* get(`/${Plural[type]}?limit=200`, caller)).json as Json
                  const item = list.items.find((r: Json) => r.slug === slug)
                  assert.deepStrictEqual(item.chains, [brief(open)], `${type} list as ${caller}`)
                }
                const asAdmin = (yield* get(`/${Plural[type]}/${slug}`, "admin")).json as Json
                assert.deepStrictEqual(asAdmin.chains, allBriefs, `${type} as admin`)
              })
          )
      )

      it.effect(
        "?chain=<a hidden chain> answers exactly like an unknown chain; a readable chain filters as before",
        () =>
          Effect.forEach(WithChainFilter, (type) =>
            Effect.gen(function* () {
              for (const caller of NonAdmins) {
                const unknown = yield* get(`/${Plural[type]}?chain=no-such-chain`, caller)
                for (const hidden of [scoring, secret, retired]) {
                  const r = yield* get(`/${Plural[type]}?chain=${hidden.record.slug}`, caller)
                  assert.strictEqual(r.status, 200)
                  assert.strictEqual(
                    r.text,
                    unknown.text,
                    `${type} ?chain=${hidden.record.slug} as ${caller}`
                  )
                }
                const shown = (yield* get(`/${Plural[type]}?chain=open-chain`, caller)).json as Json
                assert.include(
                  shown.items.map((x: Json) => x.slug),
                  `${type}-everywhere`,
                  `${type} ?chain=open-chain`
                )
              }
              const admin = (yield* get(`/${Plural[type]}?chain=scoring-chain`, "admin")).json as Json
              assert.include(
                admin.items.map((x: Json) => x.slug),
                `${type}-everywhere`,
                `${type} as admin`
              )
            })
          )
      )

      it.effect(
        "a token keeps its own chain, which the token table requires, even while that chain is hidden",
        () =>
          Effect.gen(function* () {
            const token = (yield* get("/tokens/token-everywhere")).json as Json
            assert.deepStrictEqual(token.chain, brief(scoring))
            assert.deepStrictEqual(token.chains, [brief(open)])
          })
      )

      it.effect(
        "validator_set_owner: an unpublished organisation stays (spec part 2); a private or inactive one is null, except for admins",
        () =>
          Effect.gen(function* () {
            for (const caller of NonAdmins) {
              const ownerOf = (slug: string) =>
                Effect.map(get(`/bridges/${slug}`, caller), (r) => (r.json as Json).validator_set_owner)
              assert.deepStrictEqual(yield* ownerOf("bridge-draft-owner"), owner(ownerDraft), caller)
              assert.isNull(yield* ownerOf("bridge-secret-owner"), caller)
              assert.isNull(yield* ownerOf("bridge-retired-owner"), caller)
              const listed = ((yield* get("/bridges?limit=200", caller)).json as Json).items as Array<Json>
              const bySlug = new Map(listed.map((b) => [b.slug, b.validator_set_owner]))
              assert.deepStrictEqual(bySlug.get("bridge-draft-owner"), owner(ownerDraft))
              assert.isNull(bySlug.get("bridge-secret-owner"))
              assert.isNull(bySlug.get("bridge-retired-owner"))
              const text = (yield* get("/bridges?limit=200", caller)).text
              for (const hidden of [ownerSecret, ownerRetired]) {
                assert.notInclude(text, hidden.record.id, caller)
                assert.notInclude(text, hidden.record.slug, caller)
              }
            }
            const admin = (yield* get("/bridges/bridge-secret-owner", "admin")).json as Json
            assert.deepStrictEqual(admin.validator_set_owner, owner(ownerSecret))
          })
      )
      it.effect(
        "a vault's curator and curator_id are null when the public cannot read that organisation (draft, private, inactive), in lists and on detail; admins see them as stored",
        () =>
          Effect.gen(function* () {
            for (const caller of NonAdmins) {
              const open = (yield* get("/vaults/vault-by-curator-open", caller)).json as Json
              assert.strictEqual(open.curator_id, curatorOpen.record.id, caller)
              assert.deepStrictEqual(open.curator, owner(curatorOpen), caller)
              const listed = ((yield* get("/vaults?limit=200", caller)).json as Json).items as Array<Json>
              const bySlug = new Map(listed.map((v) => [v.slug, v]))
              assert.deepStrictEqual(bySlug.get("vault-by-curator-open")?.curator, owner(curatorOpen))
              for (const hidden of hiddenCurators) {
                const slug = `vault-by-${hidden.record.slug}`
                const detail = (yield* get(`/vaults/${slug}`, caller)).json as Json
                assert.isNull(detail.curator_id, `${slug} detail as ${caller}`)
                assert.isNull(detail.curator, `${slug} detail as ${caller}`)
                assert.isNull(bySlug.get(slug)?.curator_id, `${slug} listed as ${caller}`)
                assert.isNull(bySlug.get(slug)?.curator, `${slug} listed as ${caller}`)
              }
              const text = (yield* get("/vaults?limit=200", caller)).text
              for (const hidden of hiddenCurators) {
                assert.notInclude(text, hidden.record.id, caller)
                assert.notInclude(text, `"${hidden.record.slug}"`, caller)
              }
            }
            for (const hidden of hiddenCurators) {
              const admin = (yield* get(`/vaults/vault-by-${hidden.record.slug}`, "admin")).json as Json
              assert.deepStrictEqual(admin.curator, owner(hidden))
              assert.strictEqual(admin.curator_id, hidden.record.id)
            }
          })
      )

      it.effect(
        "?curator_id=<an organisation the public cannot read> answers exactly like an unknown organisation; a readable curator filters as before",
        () =>
          Effect.gen(function* () {
            for (const caller of NonAdmins) {
              const unknown = yield* get(`/vaults?curator_id=${id()}`, caller)
              assert.deepStrictEqual(unknown.json, { items: [], total: 0 })
              for (const hidden of hiddenCurators) {
                const r = yield* get(`/vaults?curator_id=${hidden.record.id}`, caller)
                assert.strictEqual(r.status, 200)
                assert.strictEqual(r.text, unknown.text, `?curator_id=${hidden.record.slug} as ${caller}`)
                const upper = yield* get(`/vaults?curator_id=${hidden.record.id.toUpperCase()}`, caller)
                assert.strictEqual(upper.text, unknown.text, `?curator_id=${hidden.record.slug} in capitals`)
              }
              const shown = (yield* get(`/vaults?curator_id=${curatorOpen.record.id}`, caller)).json as Json
              assert.deepStrictEqual(
                shown.items.map((v: Json) => v.slug),
                ["vault-by-curator-open"]
              )
            }
            for (const hidden of hiddenCurators) {
              const admin = (yield* get(`/vaults?curator_id=${hidden.record.id}`, "admin")).json as Json
              assert.deepStrictEqual(
                admin.items.map((v: Json) => v.slug),
                [`vault-by-${hidden.record.slug}`]
              )
            }
          })
      )

      it.effect(
        "largest_drag_hint names its dependency only while the public can read it (else 'largest drag: <type>'), on the scorecard list, by id and on domains; admins read it as stored",
        () =>
          Effect.forEach(dragged, (d) =>
            Effect.gen(function* () {
              const base = `/${Plural[d.type]}/${d.entity.record.slug}`
              const byId = `/${ScorecardByIdSegment[d.type]}/${d.cards[1]!.id}`
              const hintsOf = (r: { readonly json: unknown }) =>
                ((r.json as Json).items as Array<Json>).map((c) => c.largest_drag_hint)
              for (const caller of NonAdmins) {
                const list = yield* get(`${base}/scorecards`, caller)
                const versions = caller === "pro" || caller === "enterprise" ? 2 : 1
                assert.deepStrictEqual(
                  hintsOf(list),
                  Array(versions).fill(d.served),
                  `${d.hint} as ${caller}`
                )
              }
              const domains = (yield* get(`${base}/domains`, "pro")).json as Json
              assert.strictEqual(domains.largest_drag_hint, d.served, `${d.hint} on domains`)
              const one = (yield* get(byId, "enterprise")).json as Json
              assert.strictEqual(one.largest_drag_hint, d.served, `${d.hint} by id`)
              const admin = yield* get(`${base}/scorecards`, "admin")
              assert.deepStrictEqual(hintsOf(admin), [d.hint, d.hint], `${d.hint} as admin`)
              assert.strictEqual(
                ((yield* get(`${base}/domains`, "admin")).json as Json).largest_drag_hint,
                d.hint
              )
              assert.strictEqual(((yield* get(byId, "admin")).json as Json).largest_drag_hint, d.hint)
            })
          )
      )

      it.effect(
        "an incident whose protocol the public can no longer read (draft, private, inactive) is served unmatched (slug null, matched_protocol false), and ?slug=<it> answers exactly like an unknown slug; admins see it as stored; readable again, it is matched again",
        () =>
          Effect.forEach(hacked, ({ entity }) =>
            Effect.gen(function* () {
              const slug = entity.record.slug
              // The reporter's name differs from the slug, so the protocol's slug shows only through the match.
              const name = slug.toUpperCase().replace("-", " ")
              const stored = yield* ingestTwice(name)
              assert.strictEqual(stored.slug, slug)
              assert.isTrue(stored.matched_protocol)
              const entities = yield* EntityRepository
              const hide = (hidden: boolean) =>
                slug === "hacked-draft"
                  ? entities.setStatus("protocol", entity.record.id, hidden ? "draft" : "published", T1)
                  : entities.upsert([
                      {
                        ...entity,
                        record: {
                          ...entity.record,
                          ...(slug === "hacked-private" ? { is_private: hidden } : { is_active: !hidden })
                        } as never
                      }
                    ])
              yield* hide(true)
              for (const caller of NonAdmins) {
                const feed = yield* get("/incidents?min_status=rumored&limit=200", caller)
                const item = ((feed.json as Json).items as Array<Json>).find(
                  (i) => i.incident_id === stored.incident_id
                )
                assert.deepStrictEqual(
                  item,
                  { ...stored, slug: null, matched_protocol: false },
                  `${slug} as ${caller}`
                )
                assert.notInclude(feed.text, `"${slug}"`, caller)
                const unknown = yield* get("/incidents?min_status=rumored&slug=no-such-protocol", caller)
                const bySlug = yield* get(`/incidents?min_status=rumored&slug=${slug}`, caller)
                assert.strictEqual(bySlug.status, 200)
                assert.strictEqual(bySlug.text, unknown.text, `?slug=${slug} as ${caller}`)
              }
              const admin = (yield* get(`/incidents?min_status=rumored&slug=${slug}`, "admin")).json as Json
              assert.deepStrictEqual(admin.items, [stored], `${slug} as admin`)
              yield* hide(false)
              const shown = (yield* get(`/incidents?min_status=rumored&slug=${slug}`)).json as Json
              assert.deepStrictEqual(shown.items, [stored], `${slug} readable again`)
            })
          )
      )
    }),
  { seed }
)

/** The cache of the server below, kept to read its statistics. */
let cacheOfServer: ResponseCache["Service"] | undefined

/** A cache checked against the versions in the server's own database, as in production (docs/adr/0007-projection-cache.md). */
const pgCache = Layer.effect(
  ResponseCache,
  Effect.tap(Effect.service(ResponseCache), (cache) => Effect.sync(() => (cacheOfServer = cache)))
).pipe(
  Layer.provide(
    ResponseCache.layer({
      versions: Effect.flatMap(database, (sql) => PgCacheInvalidation.currentVersions(sql))
    })
  )
)

layer(TestServer.layerPostgres(seed, { responseCache: pgCache }), { excludeTestServices: true })(
  "postgres, with the response cache",
  (it) => {
    it.effect(
      "a cached scorecard list's drag hint follows its dependency on the next request: the type alone once it is hidden (status, is_private, is_active), its name once readable again",
      () =>
        Effect.gen(function* () {
          const entities = yield* EntityRepository
          const cache = cacheOfServer!
          const path = `/vaults/${dragged[5]!.entity.record.slug}/scorecards`
          const hints = (caller: CallerName) =>
            Effect.map(get(path, caller), (r) =>
              ((r.json as Json).items as Array<Json>).map((c) => c.largest_drag_hint)
            )
          const expect = (served: string, what: string) =>
            Effect.gen(function* () {
              for (const caller of ["anonymous", "pro"] as const) {
                const first = yield* hints(caller)
                const hits = (yield* cache.stats).hits
                assert.deepStrictEqual(yield* hints(caller), first, `${what}: a second read as ${caller}`)
                assert.strictEqual((yield* cache.stats).hits, hits + 1, `${what}: served from the cache`)
                assert.deepStrictEqual(
                  first,
                  caller === "pro" ? [served, served] : [served],
                  `${what} as ${caller}`
                )
              }
            })
          const named = "oracle: open-oracle"
          const typeOnly = "largest drag: oracle"
          const upsert = (over: Record<string, unknown>) =>
            entities.upsert([{ ...openOracle, record: { ...openOracle.record, ...over } as never }])
          yield* expect(named, "readable")
          yield* entities.setStatus("oracle", openOracle.record.id, "draft", T1)
          yield* expect(typeOnly, "moved to draft")
          yield* entities.setStatus("oracle", openOracle.record.id, "published", T1)
          yield* expect(named, "published again")
          yield* upsert({ is_private: true })
          yield* expect(typeOnly, "private")
          yield* upsert({ is_private: false, is_active: false })
          yield* expect(typeOnly, "inactive")
          yield* upsert({ is_active: true })
          yield* expect(named, "active again")
          yield* upsert({ slug: "renamed-oracle" })
          yield* expect(typeOnly, "renamed")
          yield* upsert({})
          yield* expect(named, "its slug back")
        })
    )
  }
)
