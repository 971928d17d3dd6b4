/**
 * What /metrics reads from Postgres at scrape time, in one query: the webhook
 * deliveries waiting in the outbox (pending: due or scheduled for a retry),
 * how many publications were ever recorded (one rating_history row each,
 * whichever process published: a CLI `publish`, an import, the demo load),
 * and what imports have stored (entities by status, scorecards by status:
 * drafts waiting for a publish, published, superseded). Imports and publishes
 * run in other processes (the CLI), so their counts are read from the
 * database they write, and every server reports the same figures.
 * `refreshGauges` sets the gauges /metrics reports from them.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Metric, Schema } from "effect"
import { SqlSchema } from "effect/sql"

export const EntityStatuses = ["draft", "scoring", "approved", "published"] as const
export const ScorecardStatuses = ["draft", "published", "superseded"] as const

export interface ProbeFigures {
  readonly webhookQueueDepth: number
  readonly publications: number
  readonly entities: Readonly<Record<(typeof EntityStatuses)[number], number>>
  readonly scorecards: Readonly<Record<(typeof ScorecardStatuses)[number], number>>
}

const Count = Schema.NumberFromString

const Row = Schema.Struct({
  webhook_queue_depth: Count,
  publications: Count,
  entities_draft: Count,
  entities_scoring: Count,
  entities_approved: Count,
  entities_published: Count,
  scorecards_draft: Count,
  scorecards_published: Count,
  scorecards_superseded: Count
})

export class MetricsProbe extends Context.Service<
  MetricsProbe,
  { readonly read: Effect.Effect<ProbeFigures> }
>()("@ratings/adapters-sql/MetricsProbe") {}

export const layer: Layer.Layer<MetricsProbe, never, PgClient.PgClient> = Layer.effect(
  MetricsProbe,
  Effect.gen(function* () {
    const sql = yield* PgClient.PgClient
    const query = SqlSchema.findOne({
      Request: Schema.Void,
      Result: Row,
      execute: () => sql`
        SELECT
          (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::text AS webhook_queue_depth,
          (SELECT count(*) FROM rating_history)::text AS publications,
          e.draft::text AS entities_draft, e.scoring::text AS entities_scoring,
          e.approved::text AS entities_approved, e.published::text AS entities_published,
          s.draft::text AS scorecards_draft, s.published::text AS scorecards_published,
          s.superseded::text AS scorecards_superseded
        FROM
          (SELECT count(*) FILTER (WHERE status = 'draft') AS draft,
                  count(*) FILTER (WHERE status = 'scoring') AS scoring,
                  count(*) FILTER (WHERE status = 'approved') AS approved,
                  count(*) FILTER (WHERE status = 'published') AS published
             FROM entities) e,
          (SELECT count(*) FILTER (WHERE status = 'draft') AS draft,
                  count(*) FILTER (WHERE status = 'published') AS published,
                  count(*) FILTER (WHERE status = 'superseded') AS superseded
             FROM scorecards) s`
    })
    return MetricsProbe.of({
      read: query(undefined).pipe(
        Effect.map((row) => ({
          webhookQueueDepth: row.webhook_queue_depth,
          publications: row.publications,
          entities: {
            draft: row.entities_draft,
            scoring: row.entities_scoring,
            approved: row.entities_approved,
            published: row.entities_published
          },
          scorecards: {
            draft: row.scorecards_draft,
            published: row.scorecards_published,
            superseded: row.scorecards_superseded
          }
        })),
        Effect.orDie
      )
    })
  })
)

export const WebhookQueueDepth = Metric.gauge("ratings_webhook_queue_depth", {
  description: "Webhook deliveries pending in the outbox (due now or waiting for a retry), at scrape time"
})

export const Publications = Metric.gauge("ratings_publications", {
  description:
    "Publications ever recorded (rating history rows, from any process: publish, import, demo load)"
})

export const StoredEntities = Metric.gauge("ratings_stored_entities", {
  description: "Entities stored (by imports), by status: draft, scoring, approved, published"
})

export const StoredScorecards = Metric.gauge("ratings_stored_scorecards", {
  description:
    "Scorecards stored (by imports and publishes), by status: draft (waiting for a publish), published, superseded"
})

const byStatus = <S extends string>(
  gauge: Metric.Metric<number, Metric.GaugeState<number>>,
  counts: Readonly<Record<S, number>>
) =>
  Effect.forEach(
    Object.entries(counts) as Array<[S, number]>,
    ([status, n]) => Metric.update(Metric.withAttributes(gauge, { status }), n),
    { discard: true }
  )

/** Reads the figures and sets the gauges; a failed read is logged and the gauges keep their values. */
export const refreshGauges = (probe: MetricsProbe["Service"]): Effect.Effect<void> =>
  probe.read.pipe(
    Effect.flatMap((figures) =>
      Effect.all(
        [
          Metric.update(WebhookQueueDepth, figures.webhookQueueDepth),
          Metric.update(Publications, figures.publications),
          byStatus(StoredEntities, figures.entities),
          byStatus(StoredScorecards, figures.scorecards)
        ],
        { discard: true }
      )
    ),
    Effect.catchCause((cause) => Effect.logWarning("metrics: the outbox figures could not be read", cause))
  )
