/**
 * The Postgres connection of the service: a `PgClient` for a URL, with every
 * migration applied before anything else uses it (migrations run at start-up).
 */
import * as NodeServices from "@effect/platform-node/NodeServices"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { Layer, Redacted } from "effect"
import { Migrations } from "./migrations/index.ts"

export interface PgDatabaseOptions {
  readonly url: string
  readonly maxConnections?: number | undefined
  readonly applicationName?: string | undefined
}

export const PgClientLayer = (options: PgDatabaseOptions) =>
  PgClient.layer({
    url: Redacted.make(options.url),
    maxConnections: options.maxConnections ?? 10,
    applicationName: options.applicationName ?? "ratings-service"
  })

export const MigrationsLayer = PgMigrator.layer({ loader: PgMigrator.fromRecord(Migrations) }).pipe(
  Layer.provide(NodeServices.layer)
)

/** PgClient (and SqlClient) for the URL, migrated. */
export const layer = (options: PgDatabaseOptions) =>
  MigrationsLayer.pipe(Layer.provideMerge(PgClientLayer(options)))
