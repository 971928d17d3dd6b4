/**
 * The application for one process: configuration, the database (DATABASE_URL or
 * the embedded default), the server key, the operator's branding, and every
 * use case over Postgres.
 */
import {
  type DatabaseRole,
  type DatabaseTarget,
  resolveDatabase
} from "@ratings/adapters-sql/EmbeddedDataDir"
import { resolveServerKey } from "@ratings/adapters-sql/ServerKey"
import { Branding } from "@ratings/domain/model/ServiceInfo"
import { Context, Effect, Layer } from "effect"
import { ServerConfig } from "./Config.ts"
import { application, database } from "./Layers.ts"

export class AppInfo extends Context.Service<
  AppInfo,
  { readonly config: ServerConfig; readonly database: DatabaseTarget }
>()("@ratings/server/AppInfo") {}

const appLayer = (role: DatabaseRole) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const config = yield* ServerConfig
      const target = yield* resolveDatabase(config, role)
      const key = yield* resolveServerKey(config)
      return application(key).pipe(
        Layer.provideMerge(database(target.url)),
        Layer.provideMerge(Layer.succeed(AppInfo, AppInfo.of({ config, database: target }))),
        // The operator's branding, for the reads (the methodology) and the HTTP server built beside them.
        Layer.provideMerge(Branding.layer(config.branding))
      )
    })
  )

/** The application of a CLI command: it may use the embedded Postgres a server runs for the data folder. */
export const AppLayer = appLayer("command")

/** The application of `ratings serve`: it owns the data folder's embedded Postgres (adapters-sql EmbeddedDataDir.ts). */
export const ServeAppLayer = appLayer("serve")
