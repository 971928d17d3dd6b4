/**
 * What /metrics reads from Postgres at scrape time, in one cheap query: the
 * webhook deliveries waiting in the outbox (pending: due or scheduled for a
 * retry), and how many publications were ever recorded (one rating_history
 * row each, whichever process published: a CLI `publish`, an import, the
 * demo load), so every server reports the same figures.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Schema } from "effect"
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
