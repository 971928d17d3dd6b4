/**
 * The HTTP server: the contract's routes with their handlers, the OpenAPI
 * document at /openapi.json (and under the API prefix), served by Node.
 */
import { createServer } from "node:http"
import { NodeHttpServer } from "@effect/platform-node"
import { Layer } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApiBuilder, HttpApiScalar } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { Handlers } from "./Handlers.ts"

export const ApiRoutes = HttpApiBuilder.layer(RatingsApi, { openapiPath: "/openapi.json" }).pipe(
  Layer.provide(Handlers)
)

export const DocsRoute = HttpApiScalar.layer(RatingsApi, { path: "/docs" })

export const AllRoutes = Layer.mergeAll(ApiRoutes, DocsRoute)

export const serve = (options: { readonly port: number; readonly host?: string | undefined }) =>
  HttpRouter.serve(AllRoutes).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: options.host ?? "0.0.0.0" }))
  )
