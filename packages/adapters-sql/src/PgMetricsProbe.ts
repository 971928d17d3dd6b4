/**
 * What /metrics reads from Postgres at scrape time, in one cheap query: the
 * webhook deliveries waiting in the outbox (pending: due or scheduled for a
 * retry), and how many publications were ever recorded (one rating_history
 * row each, whichever process published: a CLI `publish`, an import, the
 * demo load), so every server reports the same figures. `refreshGauges` sets
 * the two gauges /metrics reports from them.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Metric, Schema } from "effect"
import { SqlSchema } from "effect/sql"

export interface ProbeFigures {
  readonly webhookQueueDepth: number
  readonly publications: number
}

const Row = Schema.Struct({
  webhook_queue_depth: Schema.NumberFromString,
  publications: Schema.NumberFromString
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
          (SELECT count(*) FROM rating_history)::text AS publications`
    })
    return MetricsProbe.of({
      read: query(undefined).pipe(
        Effect.map((row) => ({ webhookQueueDepth: row.webhook_queue_depth, publications: row.publications })),
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

/** Reads the figures and sets the gauges; a failed read is logged and the gauges keep their values. */
export const refreshGauges = (probe: MetricsProbe["Service"]): Effect.Effect<void> =>
  probe.read.pipe(
    Effect.flatMap((figures) =>
      Effect.andThen(
        Metric.update(WebhookQueueDepth, figures.webhookQueueDepth),
        Metric.update(Publications, figures.publications)
      )
    ),
    Effect.catchCause((cause) => Effect.logWarning("metrics: the outbox figures could not be read", cause))
  )
