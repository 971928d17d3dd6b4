/**
 * Read benchmark child process: the baseline, a plain Fastify server doing the
 * same SQL as our Postgres adapter over the same database with `pg` (a pool
 * of 10 connections, as ours), and answering the same JSON for an anonymous
 * caller:
 *
 * - `GET /api/v1/protocols?limit=&skip=`: PgEntityRepository's list statement
 *   (the filtered count and the page in one round trip) for the public filter.
 * - `GET /api/v1/protocols/:id_or_slug/scorecards`: the entity by id (UUID) or
 *   slug, then PgScorecardRepository's list of its scorecards, projected as
 *   the domain does for anonymous callers (the latest published one, without
 *   domain_scores and mvc_gates), 404 `{"detail": "not found"}` otherwise.
 *
 * No response schema: Fastify serialises with JSON.stringify, as a plain
 * service would.
 *
 *   node bench/readBaselineServer.ts <port> <database-url>
 */
import Fastify from "fastify"
import pg from "pg"

const [port, url] = process.argv.slice(2)
if (port === undefined || url === undefined)
  throw new Error("usage: readBaselineServer.ts <port> <database-url>")

const pool = new pg.Pool({ connectionString: url, max: 10 })

const EntityColumns = (alias: string) =>
  [
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
    .map((c) => `${alias}.${c}`)
    .join(", ")

const PublicProtocols = `entity_type = 'protocol'::text AND NOT is_private AND is_active AND status = 'published'`

const ListSql = `SELECT c.total, p.* FROM (SELECT count(*)::int AS total FROM entities WHERE ${PublicProtocols}) c
  LEFT JOIN LATERAL (
    SELECT ${EntityColumns("e")}
    FROM (
      SELECT id, slug FROM entities WHERE ${PublicProtocols}
      ORDER BY slug COLLATE "C", id LIMIT $1 OFFSET $2
    ) k
    JOIN entities e ON e.id = k.id
    ORDER BY k.slug COLLATE "C", k.id
  ) p ON true`

const ById = `SELECT ${EntityColumns("e")} FROM entities e WHERE entity_type = 'protocol'::text AND id = $1::uuid`
const BySlug = `SELECT ${EntityColumns("e")} FROM entities e WHERE entity_type = 'protocol'::text AND slug = $1::text`

const ScorecardsSql = `SELECT s.id, s.entity_id, s.entity_type, s.status, s.scorecard_version, s.grade, s.letter_grade,
  s.composite_score, s.intrinsic_composite_score, s.intrinsic_letter_grade, s.largest_drag_hint,
  s.has_unrated_dependencies, s.domain_scores, s.mvc_gates, s.last_rated_at, s.scorecard_published_at
  FROM scorecards s WHERE s.entity_type = 'protocol'::text AND s.entity_id = $1::uuid
  ORDER BY s.scorecard_version DESC`

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

// biome-ignore lint/suspicious/noExplicitAny: rows as pg returns them
type Row = Record<string, any>

/** The service's timestamp form (the live service's): +00:00, and a six-digit fraction only when there is one. */
const wireIso = (d: Date): string => {
  const text = d.toISOString()
  const ms = text.slice(20, 23)
  return `${text.slice(0, 19)}${ms === "000" ? "" : `.${ms}000`}+00:00`
}

const toRecord = (row: Row) => ({
  ...row.details,
  id: row.id,
  name: row.name,
  slug: row.slug,
  status: row.status,
  categories: row.categories,
  chains: row.chains,
  urls: row.urls,
  external_ids: row.external_ids,
  description: row.description,
  is_active: row.is_active,
  is_private: row.is_private,
  created_at: wireIso(row.created_at),
  updated_at: wireIso(row.updated_at)
})

const iso = (d: Date | null) => (d === null ? null : wireIso(d))

const integer = (text: unknown, fallback: number, min: number, max: number): number | undefined => {
  if (text === undefined) return fallback
  const n = Number(text)
  return typeof text === "string" && /^[+-]?\d+$/.test(text) && n >= min && n <= max ? n : undefined
}

const app = Fastify({ logger: false })

app.get("/health", async () => ({ status: "ok" }))

app.get<{ Querystring: { limit?: string; skip?: string } }>("/api/v1/protocols", async (request, reply) => {
  const limit = integer(request.query.limit, 50, 1, 200)
  const skip = integer(request.query.skip, 0, 0, Number.MAX_SAFE_INTEGER)
  if (limit === undefined || skip === undefined) return reply.code(422).send({ detail: "invalid" })
  const { rows } = await pool.query(ListSql, [limit, skip])
  return {
    items: rows.filter((r) => r.id !== null).map(toRecord),
    total: rows[0]?.total ?? 0
  }
})

app.get<{ Params: { id_or_slug: string } }>(
  "/api/v1/protocols/:id_or_slug/scorecards",
  async (request, reply) => {
    const key = request.params.id_or_slug
    const found = await pool.query(UUID.test(key) ? ById : BySlug, [key])
    const entity = found.rows[0]
    if (entity === undefined || entity.status !== "published" || entity.is_private || !entity.is_active)
      return reply.code(404).send({ detail: "not found" })
    const { rows } = await pool.query(ScorecardsSql, [entity.id])
    const latest = rows.find((r) => r.status === "published")
    const items =
      latest === undefined
        ? []
        : [
            {
              ...latest,
              domain_scores: null,
              mvc_gates: null,
              last_rated_at: iso(latest.last_rated_at),
              scorecard_published_at: iso(latest.scorecard_published_at)
            }
          ]
    return { items, total: items.length }
  }
)

app.listen({ port: Number(port), host: "127.0.0.1" }).then(
  (address) => console.log(`baseline listening on ${address}`),
  (error: unknown) => {
    console.error(error)
    process.exit(1)
  }
)
