/**
 * Read benchmark child process: the baseline, a plain Fastify server doing the
 * same SQL as our Postgres adapters over the same database with `pg` (a pool
 * of 10 connections, as ours), for every read route of one entity type
 * (protocols) and the shared routes, answering what our service answers:
 *
 * - a keyed caller (`Authorization: Bearer rk_...`) is looked up with
 *   PgApiKeyRepository's statement (by SHA-256 digest, not revoked); a route
 *   above its tier answers 403, one without a key 401 (the bench does not
 *   load those);
 * - lists: PgEntityRepository's list statement (the filtered count and the
 *   page in one round trip) with its WHERE for limit, skip, category, chain
 *   and search, then the briefs of chains the public cannot read removed
 *   (the `unreadable` statement, as every public read does);
 * - detail by slug or id, the scorecard list (the tier's projection: the
 *   latest published one without domain_scores and mvc_gates for anonymous
 *   and Free callers, the published history for Pro and Enterprise), domains,
 *   history, questions, rubric, evidence and a scorecard by id: the entity
 *   lookup, then ScorecardReads' and PgRubricRepository's statements, with
 *   drag hints naming an entity the public cannot read replaced by its type;
 * - methodology (the seven question catalogues), incidents (the feed and its
 *   count), quantum readiness (every chain, as the chain directory reads them,
 *   the latest snapshot and the last refresh outcome) and compare
 *   (each entity, then their latest published scorecards).
 *
 * No response schema: Fastify serialises with JSON.stringify, as a plain
 * service would. The shared rules (the grade ladder, default domain weights,
 * the drag-hint format, incident confidence defaults, the quantum row matcher)
 * are imported from the domain, pure; every
 * byte served comes from these statements.
 *
 *   node bench/readBaselineServer.ts <port> <database-url>
 */
import { createHash } from "node:crypto"
import { DefaultConfidenceBps } from "@ratings/domain/incidents/IncidentLifecycle"
import { isUsableReading } from "@ratings/domain/model/Quantum"
import { canonicalTimestamp } from "@ratings/domain/model/Primitives"
import { Attribution, MethodologyUrl } from "@ratings/domain/model/ServiceInfo"
import { BridgeCategoryDomains } from "@ratings/domain/scoring/BridgeRubric"
import { dragHintTarget, typeOnlyDragHint } from "@ratings/domain/scoring/DependencyDrag"
import { MaxQuantumRows, matchRows } from "@ratings/domain/quantum/QuantumRows"
import { GradeLadder, GradeRounding } from "@ratings/domain/scoring/GradeLadder"
import { domainsOfType, MethodologyName, MethodologyVersion } from "@ratings/domain/scoring/Methodology"
import { defaultDomainWeights } from "@ratings/domain/scoring/ScoreEntity"
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify"
import pg from "pg"

const [port, url] = process.argv.slice(2)
if (port === undefined || url === undefined)
  throw new Error("usage: readBaselineServer.ts <port> <database-url>")

/** PgQuantumSnapshotStore's bound on the rows a read serves. */
const MaxServedRowsBytes = 8 * 1024 * 1024

const pool = new pg.Pool({ connectionString: url, max: 10 })

const EntityColumnNames = [
  "id",
  "entity_type",
  "slug",
  "name",
  "status",
  "categories",
  "chains",
  "urls",
  "external_ids",
  "description",
  "is_active",
  "is_private",
  "created_at",
  "updated_at",
  "curator_id",
  "is_framework",
  "details"
]
const EntityColumns = EntityColumnNames.join(", ")
const EntityColumnsOf = (alias: string) => EntityColumnNames.map((c) => `${alias}.${c}`).join(", ")

const ListColumns = `s.id, s.entity_id, s.entity_type, s.status, s.scorecard_version, s.grade, s.letter_grade,
  s.composite_score, s.intrinsic_composite_score, s.intrinsic_letter_grade, s.largest_drag_hint,
  s.has_unrated_dependencies, s.domain_scores, s.mvc_gates, s.last_rated_at, s.scorecard_published_at`
const AnswersJson = `coalesce((SELECT jsonb_agg(jsonb_build_object('id', a.id, 'question_id', a.question_id,
    'domain', a.domain, 'score', a.score, 'max_score', a.max_score, 'weight', a.weight,
    'confidence', a.confidence, 'response', a.response, 'rationale', a.rationale) ORDER BY a.position)
  FROM answers a WHERE a.scorecard_id = s.id), '[]'::jsonb)`
const EvidenceJson = `coalesce((SELECT jsonb_agg(jsonb_build_object('question_id', e.question_id,
    'evidence', e.items, 'reasoning', e.reasoning) ORDER BY e.position)
  FROM evidence e WHERE e.scorecard_id = s.id), '[]'::jsonb)`
const DetailColumns = `${ListColumns}, s.domain_weights, s.dependencies, ${AnswersJson} AS answers,
  ${EvidenceJson} AS evidence`

const Type = "protocol"

const ById = `SELECT ${EntityColumns} FROM entities WHERE entity_type = $1::text AND id = $2::uuid`
const BySlug = `SELECT ${EntityColumns} FROM entities WHERE entity_type = $1::text AND slug = $2::text`
const Unreadable = `SELECT id, slug, status, is_private, is_active FROM entities
  WHERE entity_type = $1::text AND NOT (status = 'published' AND is_active AND NOT is_private)
  ORDER BY slug COLLATE "C", id`
const ScorecardList = `SELECT ${ListColumns} FROM scorecards s
  WHERE s.entity_type = $1::text AND s.entity_id = $2::uuid ORDER BY s.scorecard_version DESC`
const LatestPublished = `SELECT ${DetailColumns} FROM scorecards s
  WHERE s.entity_id = $1::uuid AND s.entity_type = $2::text AND s.status = 'published'::text
  ORDER BY s.scorecard_version DESC LIMIT 1`
const ScorecardById = `SELECT ${DetailColumns} FROM scorecards s WHERE s.id = $1::uuid AND s.entity_type = $2::text`
const LatestPublishedOf = `SELECT ${ListColumns} FROM scorecards s
  WHERE s.entity_id = ANY($1::uuid[]) AND s.status = 'published' AND s.entity_type = $2::text`
const History = `SELECT scorecard_id, scorecard_version, grade, letter_grade, composite_score,
  intrinsic_composite_score, intrinsic_letter_grade, published_at, reasoning, changed_by
  FROM rating_history WHERE entity_id = $1::uuid ORDER BY scorecard_version DESC`
const Questions = `SELECT entity_type, id, position, domain, text, weight, max_score, criteria, gate
  FROM questions WHERE entity_type = $1::text ORDER BY position`
const KeyByHash = `SELECT id, name, tier, account_id, prefix, created_at, revoked_at FROM api_keys
  WHERE hash = $1::text AND revoked_at IS NULL`
const IncidentFeed = `SELECT i.incident_id, i.protocol_name, i.slug, i.matched_protocol, i.status, i.exploit_class,
  i.loss_estimate_usd, i.chain, i.confidence_bps, i.detected_at_text, i.first_seen_at_text,
  i.resolved_at_text, i.resolution,
  ARRAY(SELECT s.handle FROM incident_sources s WHERE s.incident_id = i.incident_id ORDER BY s.position) AS handles
  FROM incidents i WHERE i.servable AND i.status = ANY ($1::text[])
  ORDER BY i.detected_at DESC, i.incident_id LIMIT $2 OFFSET $3`
const IncidentCount = `SELECT count(*)::integer AS total FROM incidents i
  WHERE i.servable AND i.status = ANY ($1::text[])`
const QuantumSnapshot = `SELECT rows, rows_skipped, as_of_text, expires_at_text, source, source_url, sample
  FROM quantum_snapshots WHERE row_count <= $1 AND rows_bytes <= $2 ORDER BY id DESC LIMIT 1`

// biome-ignore lint/suspicious/noExplicitAny: rows as pg returns them
type Row = Record<string, any>

const query = async (text: string, values: ReadonlyArray<unknown>): Promise<Array<Row>> =>
  (await pool.query(text, values as Array<unknown>)).rows

/** The service's timestamp form: +00:00, and a six-digit fraction only when there is one. */
const wireIso = (d: Date): string => {
  const text = d.toISOString()
  const ms = text.slice(20, 23)
  return `${text.slice(0, 19)}${ms === "000" ? "" : `.${ms}000`}+00:00`
}
const iso = (d: Date | null) => (d === null ? null : wireIso(d))

const readable = (row: Row) => row.status === "published" && row.is_active && !row.is_private

/** The entity row as the service's record, without the briefs of chains in `hidden`. */
const toRecord = (row: Row, hidden: ReadonlySet<string>) => ({
  ...row.details,
  id: row.id,
  name: row.name,
  slug: row.slug,
  status: row.status,
  categories: row.categories,
  chains: row.chains.filter(
    (b: { slug: string; id?: string }) =>
      !hidden.has(b.slug) && (b.id === undefined || !hidden.has(b.id.toLowerCase()))
  ),
  urls: row.urls,
  external_ids: row.external_ids,
  description: row.description,
  is_active: row.is_active,
  is_private: row.is_private,
  created_at: wireIso(row.created_at),
  updated_at: wireIso(row.updated_at)
})

/** Slugs and ids of the chains the public cannot read. */
const hiddenChains = async (): Promise<ReadonlySet<string>> => {
  const rows = await query(Unreadable, ["chain"])
  return new Set(rows.flatMap((r) => [r.slug, r.id.toLowerCase()]))
}

const scorecardOf = (row: Row) => ({
  id: row.id,
  entity_id: row.entity_id,
  entity_type: row.entity_type,
  status: row.status,
  scorecard_version: row.scorecard_version,
  grade: row.grade,
  letter_grade: row.letter_grade,
  composite_score: row.composite_score,
  intrinsic_composite_score: row.intrinsic_composite_score,
  intrinsic_letter_grade: row.intrinsic_letter_grade,
  largest_drag_hint: row.largest_drag_hint,
  has_unrated_dependencies: row.has_unrated_dependencies,
  domain_scores: row.domain_scores,
  mvc_gates: row.mvc_gates,
  last_rated_at: iso(row.last_rated_at),
  scorecard_published_at: iso(row.scorecard_published_at)
})

/** A drag hint as the public may read it: its dependency named only while that entity is readable. */
const publicHint = async (hint: string | null): Promise<string | null> => {
  const target = hint === null ? undefined : dragHintTarget(hint)
  if (hint === null || target === undefined) return hint
  const [named] = await query(BySlug, [target.entity_type, target.slug])
  return named !== undefined && readable(named) ? hint : typeOnlyDragHint(target.entity_type)
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const Tiers = ["anonymous", "free", "pro", "enterprise"] as const
type Tier = (typeof Tiers)[number]

/** The caller's tier: a key looked up by its digest; anonymous without one. */
const tierOf = async (request: FastifyRequest): Promise<Tier | undefined> => {
  const header = request.headers.authorization
  if (header === undefined) return "anonymous"
  const key = header.startsWith("Bearer ") ? header.slice(7) : ""
  const digest = createHash("sha256").update(key, "utf8").digest("hex")
  const [found] = await query(KeyByHash, [digest])
  return found?.tier
}

class Refused extends Error {
  readonly status: number
  constructor(status: number) {
    super(String(status))
    this.status = status
  }
}

/** The caller's tier, refused (401 / 403) below `required`. */
const gate = async (request: FastifyRequest, required: Tier): Promise<Tier> => {
  const tier = await tierOf(request)
  if (tier === undefined) throw new Refused(401)
  if (Tiers.indexOf(tier) < Tiers.indexOf(required)) throw new Refused(tier === "anonymous" ? 401 : 403)
  return tier
}

/** The entity by id or slug when the public may read it and its scorecards; 404 otherwise. */
const entity = async (identifier: string): Promise<Row> => {
  const [row] = await query(UUID.test(identifier) ? ById : BySlug, [Type, identifier])
  if (row === undefined || !readable(row)) throw new Refused(404)
  return row
}

const brief = (row: Row) => ({ slug: row.slug, name: row.name })

const latestPublished = async (entityId: string): Promise<Row | undefined> =>
  (await query(LatestPublished, [entityId, Type]))[0]

const weightsOf = (row: Row, card: Row | undefined) =>
  card?.domain_weights ?? defaultDomainWeights(Type, row.categories ?? [])

const integer = (text: unknown, fallback: number, min: number, max: number): number => {
  if (text === undefined) return fallback
  const n = Number(text)
  if (typeof text === "string" && /^[+-]?\d+$/.test(text) && n >= min && n <= max) return n
  throw new Refused(422)
}

const app = Fastify({ logger: false })

app.setErrorHandler((error, _request, reply: FastifyReply) => {
  if (error instanceof Refused) return reply.code(error.status).send({ detail: String(error.status) })
  console.error(error)
  return reply.code(500).send({ detail: "internal" })
})

app.get("/health", async () => ({ status: "ok" }))

type Query = Record<string, string | undefined>

app.get<{ Querystring: Query }>("/api/v1/protocols", async (request) => {
  await gate(request, "anonymous")
  const q = request.query
  const limit = integer(q.limit, 50, 1, 200)
  const skip = integer(q.skip, 0, 0, Number.MAX_SAFE_INTEGER)
  const hidden = await hiddenChains()
  if (q.chain !== undefined && hidden.has(q.chain)) return { items: [], total: 0 }
  const values: Array<unknown> = [Type]
  const where = ["entity_type = $1::text", "NOT is_private", "is_active", "status = 'published'"]
  if (q.search !== undefined && q.search !== "") {
    values.push(`%${q.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
    const p = `$${values.length}::text`
    where.push(`(name_lower LIKE ${p} OR slug LIKE ${p} OR symbol_lower LIKE ${p})`)
  }
  if (q.chain !== undefined) {
    values.push(q.chain)
    where.push(`chain_slugs @> ARRAY[$${values.length}::text]`)
  }
  if (q.category !== undefined) {
    values.push(q.category.split(",").map((c) => c.toLowerCase()))
    where.push(`categories && $${values.length}::text[]`)
  }
  const w = where.join(" AND ")
  values.push(limit, skip)
  const rows = await query(
    `SELECT c.total, p.* FROM (SELECT count(*)::int AS total FROM entities WHERE ${w}) c
    LEFT JOIN LATERAL (
      SELECT ${EntityColumnsOf("e")}
      FROM (
        SELECT id, slug FROM entities WHERE ${w}
        ORDER BY slug COLLATE "C", id LIMIT $${values.length - 1} OFFSET $${values.length}
      ) k
      JOIN entities e ON e.id = k.id
      ORDER BY k.slug COLLATE "C", k.id
    ) p ON true`,
    values
  )
  return {
    items: rows.filter((r) => r.id !== null).map((r) => toRecord(r, hidden)),
    total: rows[0]?.total ?? 0
  }
})

type Params = { id: string }

app.get<{ Params: Params }>("/api/v1/protocols/:id", async (request) => {
  await gate(request, "anonymous")
  const row = await entity(request.params.id)
  return toRecord(row, await hiddenChains())
})

app.get<{ Params: Params }>("/api/v1/protocols/:id/scorecards", async (request) => {
  const tier = await gate(request, "anonymous")
  const row = await entity(request.params.id)
  const rows = await query(ScorecardList, [Type, row.id])
  const published = rows.filter((r) => r.status === "published" || r.status === "superseded")
  const projected =
    tier === "anonymous" || tier === "free"
      ? published
          .filter((r) => r.status === "published")
          .slice(0, 1)
          .map((r) => ({ ...scorecardOf(r), domain_scores: null, mvc_gates: null }))
      : published.map((r) => ({ ...scorecardOf(r), mvc_gates: null }))
  const hints = new Map<string | null, string | null>()
  for (const s of projected)
    if (!hints.has(s.largest_drag_hint)) hints.set(s.largest_drag_hint, await publicHint(s.largest_drag_hint))
  const items = projected.map((s) => ({ ...s, largest_drag_hint: hints.get(s.largest_drag_hint) ?? null }))
  return { items, total: items.length }
})

app.get<{ Params: Params }>("/api/v1/protocols/:id/domains", async (request) => {
  await gate(request, "pro")
  const row = await entity(request.params.id)
  const card = await latestPublished(row.id)
  return {
    entity: brief(row),
    composite_score: card?.composite_score ?? null,
    grade: card?.grade ?? null,
    letter_grade: card?.letter_grade ?? null,
    intrinsic_composite_score: card?.intrinsic_composite_score ?? null,
    intrinsic_letter_grade: card?.intrinsic_letter_grade ?? null,
    largest_drag_hint: await publicHint(card?.largest_drag_hint ?? null),
    has_unrated_dependencies: card?.has_unrated_dependencies ?? false,
    domain_scores: card?.domain_scores ?? {},
    last_rated_at: iso(card?.last_rated_at ?? null)
  }
})

app.get<{ Params: Params }>("/api/v1/protocols/:id/history", async (request) => {
  await gate(request, "pro")
  const row = await entity(request.params.id)
  const items = (await query(History, [row.id])).map((h) => ({
    scorecard_id: h.scorecard_id,
    scorecard_version: h.scorecard_version,
    grade: h.grade,
    letter_grade: h.letter_grade,
    composite_score: h.composite_score,
    intrinsic_composite_score: h.intrinsic_composite_score,
    intrinsic_letter_grade: h.intrinsic_letter_grade,
    published_at: wireIso(h.published_at),
    reasoning: h.reasoning,
    ...(h.changed_by === null ? {} : { changed_by: h.changed_by })
  }))
  return { entity: brief(row), items, total: items.length }
})

app.get<{ Params: Params }>("/api/v1/protocols/:id/questions", async (request) => {
  await gate(request, "enterprise")
  const row = await entity(request.params.id)
  const card = await latestPublished(row.id)
  const catalogue = await query(Questions, [Type])
  const answers = new Map<string, Row>((card?.answers ?? []).map((a: Row) => [a.question_id, a]))
  return {
    entity: brief(row),
    scorecard_version: card?.scorecard_version ?? null,
    scorecard_published_at: iso(card?.scorecard_published_at ?? null),
    domain_weights: weightsOf(row, card),
    items: catalogue.map((q) => {
      const a = answers.get(q.id)
      return {
        question_id: q.id,
        domain: q.domain,
        text: q.text,
        weight: a?.weight ?? q.weight,
        max_score: a?.max_score ?? q.max_score,
        score: a?.score ?? null,
        confidence: a?.confidence ?? null,
        response: a?.response ?? null,
        rationale: a?.rationale ?? null
      }
    })
  }
})

app.get<{ Params: Params }>("/api/v1/protocols/:id/rubric", async (request) => {
  await gate(request, "enterprise")
  const row = await entity(request.params.id)
  const card = await latestPublished(row.id)
  const catalogue = await query(Questions, [Type])
  return {
    entity: brief(row),
    domain_weights: weightsOf(row, card),
    items: catalogue.map((q) => ({
      question_id: q.id,
      domain: q.domain,
      text: q.text,
      weight: q.weight,
      max_score: q.max_score,
      criteria: q.criteria
    }))
  }
})

app.get<{ Params: Params }>("/api/v1/protocols/:id/evidence", async (request) => {
  await gate(request, "enterprise")
  const row = await entity(request.params.id)
  const card = await latestPublished(row.id)
  const catalogue = await query(Questions, [Type])
  const byQuestion = new Map<string, Row>((card?.evidence ?? []).map((e: Row) => [e.question_id, e]))
  const answers = new Map<string, Row>((card?.answers ?? []).map((a: Row) => [a.question_id, a]))
  return {
    entity: brief(row),
    scorecard_version: card?.scorecard_version ?? null,
    scorecard_published_at: iso(card?.scorecard_published_at ?? null),
    domain_weights: weightsOf(row, card),
    items: catalogue.map((q) => ({
      question_id: q.id,
      domain: q.domain,
      weight: answers.get(q.id)?.weight ?? q.weight,
      evidence: (byQuestion.get(q.id)?.evidence ?? []).map((e: Row) =>
        e.collected_at === null ? e : { ...e, collected_at: canonicalTimestamp(e.collected_at) }
      ),
      reasoning: byQuestion.get(q.id)?.reasoning ?? null
    }))
  }
})

app.get<{ Params: Params }>("/api/v1/scorecards/:id", async (request) => {
  await gate(request, "enterprise")
  if (!UUID.test(request.params.id)) throw new Refused(404)
  const [card] = await query(ScorecardById, [request.params.id, Type])
  if (card === undefined || card.status === "draft") throw new Refused(404)
  const [owner] = await query(ById, [Type, card.entity_id])
  if (owner === undefined || !readable(owner)) throw new Refused(404)
  const { dependencies: _d, evidence: _e, ...detail } = card
  return {
    ...scorecardOf(detail),
    domain_weights: detail.domain_weights,
    answers: detail.answers,
    largest_drag_hint: await publicHint(detail.largest_drag_hint),
    mvc_gates: null
  }
})

const EntityTypes = ["protocol", "chain", "token", "oracle", "vault", "organisation", "bridge"] as const

app.get("/api/v1/methodology", async () => {
  const entity_types = []
  for (const type of EntityTypes) {
    const qs = await query(Questions, [type])
    const domains =
      type === "bridge" ? domainsOfType(type, Object.values(BridgeCategoryDomains)) : domainsOfType(type)
    entity_types.push({ type, questions: qs.length, domains, domain_count: domains.length })
  }
  return {
    name: MethodologyName,
    version: MethodologyVersion,
    total_questions: entity_types.reduce((n, t) => n + t.questions, 0),
    entity_types,
    grade_scale: GradeLadder.map((b) => ({
      grade: b.grade,
      min_score: b.min_score,
      description: b.description
    })),
    grade_rounding: GradeRounding,
    attribution: Attribution,
    methodology_url: MethodologyUrl
  }
})

const IncidentTiers = ["rumored", "corroborated", "confirmed"]

app.get<{ Querystring: Query }>("/api/v1/incidents", async (request) => {
  const q = request.query
  const from = IncidentTiers.indexOf(q.min_status ?? "corroborated")
  if (from < 0) throw new Refused(422)
  const tiers = IncidentTiers.slice(from)
  const limit = integer(q.limit, 50, 1, 200)
  const offset = integer(q.offset, 0, 0, Number.MAX_SAFE_INTEGER)
  const rows = await query(IncidentFeed, [tiers, limit, offset])
  const [count] = await query(IncidentCount, [tiers])
  return {
    items: rows.map((r) => ({
      incident_id: r.incident_id,
      protocol_name: r.protocol_name,
      slug: r.slug,
      matched_protocol: r.matched_protocol,
      status: r.status,
      exploit_class: r.exploit_class,
      loss_estimate_usd: r.loss_estimate_usd,
      chain: r.chain,
      confidence_bps: r.confidence_bps ?? DefaultConfidenceBps[r.status as keyof typeof DefaultConfidenceBps],
      source_count: r.handles.length,
      sources: r.handles.map((handle: string) => ({ handle })),
      detected_at: r.detected_at_text,
      first_seen_at: r.first_seen_at_text,
      resolved_at: r.resolved_at_text,
      resolution: r.resolution
    })),
    total: count?.total ?? 0
  }
})

const LastOutcome = `SELECT at_text, ok, error FROM quantum_refresh_outcomes ORDER BY id DESC LIMIT 1`

const AllChains = `SELECT ${EntityColumns} FROM entities WHERE entity_type = 'chain'::text
  ORDER BY slug COLLATE "C", id`

/**
 * The service's chains (every chain, as the chain directory reads them, less
 * private and inactive ones), the latest snapshot with its rows matched to
 * them, whether it is stale (expired after a failed refresh), and its credit line.
 */
const quantum = async () => {
  const chains = (await query(AllChains, []))
    .filter((r) => !r.is_private && r.is_active)
    .map((r) => ({ slug: r.slug, name: r.name, status: r.status }))
  const [stored] = await query(QuantumSnapshot, [MaxQuantumRows, MaxServedRowsBytes])
  const s: Row | undefined =
    stored === undefined ? undefined : { ...stored, rows: matchRows(stored.rows, chains) }
  const [last] = await query(LastOutcome, [])
  const source = s?.source ?? "LayerQu"
  const source_url = s?.source_url ?? "https://layerqu.com/dashboard/"
  const credit = `Post-quantum readiness data: ${source} (${source_url}), a third-party source. Shown for information; it does not feed ratings or grades.`
  const attribution = {
    source,
    source_url,
    attribution:
      s?.sample === true ? `Sample data shipped with the service, not a live reading. ${credit}` : credit
  }
  const stale =
    s !== undefined &&
    last !== undefined &&
    !last.ok &&
    Date.parse(last.at_text) >= Date.parse(s.as_of_text) &&
    Date.parse(s.expires_at_text) <= Date.now()
  return { chains, snapshot: s, attribution, stale: stale ? { stale: true } : {} }
}

app.get("/api/v1/quantum-readiness", async () => {
  const { snapshot, attribution, stale } = await quantum()
  if (snapshot === undefined) return { available: false, reason: "source unreachable", ...attribution }
  return {
    available: true,
    ...attribution,
    as_of: snapshot.as_of_text,
    ...stale,
    rows: snapshot.rows,
    rows_skipped: snapshot.rows_skipped
  }
})

app.get<{ Params: Params }>("/api/v1/chains/:id/quantum-readiness", async (request) => {
  const slug = request.params.id
  const { chains, snapshot, attribution, stale } = await quantum()
  if (!chains.some((c) => c.slug === slug))
    return { available: false, reason: "unknown chain", ...attribution }
  if (snapshot === undefined) return { available: false, reason: "source unreachable", ...attribution }
  const usable = (r: Row) => isUsableReading(r as Parameters<typeof isUsableReading>[0])
  const matched: Array<Row> = snapshot.rows.filter((r: Row) => r.matched_chain_slug === slug)
  const row = matched.find(usable) ?? matched[0]
  if (row === undefined || !usable(row))
    return { available: false, reason: "not assessed by source", ...attribution }
  return {
    available: true,
    chain_slug: slug,
    qri: row.qri,
    band: row.band,
    band_label: row.band_label,
    stage: row.stage,
    hybrid: row.hybrid,
    danger: row.danger,
    ci: row.ci,
    ...attribution,
    as_of: snapshot.as_of_text,
    ...stale
  }
})

app.get<{ Querystring: Query }>("/api/v1/compare", async (request) => {
  await gate(request, "enterprise")
  const ids = (request.query.ids ?? "").split(",")
  const fields = (request.query.fields ?? "slug").split(",")
  const found: Array<Row> = []
  for (const id of ids) found.push(await entity(id))
  const cards = new Map(
    (await query(LatestPublishedOf, [found.map((r) => r.id), Type])).map((r) => [r.entity_id, scorecardOf(r)])
  )
  return {
    items: found.map((r) => {
      const card: Row | undefined = cards.get(r.id)
      const item: Row = { id: r.id }
      for (const f of fields) item[f] = f === "slug" ? r.slug : f === "name" ? r.name : (card?.[f] ?? null)
      return item
    })
  }
})

app.listen({ port: Number(port), host: "127.0.0.1" }).then(
  (address) => console.log(`baseline listening on ${address}`),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
