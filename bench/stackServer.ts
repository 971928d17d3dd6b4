/**
 * Stack benchmark child process (bench/stack.bench.ts): one HTTP stack with
 * no database and no middleware, answering two routes from data held in
 * memory, so that the bench measures what the stack alone costs per request:
 *
 * - `GET /health`: `{"status":"ok"}`, as our /health answers;
 * - `GET /items`: a page of 50 records shaped like a protocol list's items
 *   (strings, numbers, arrays, a nullable, a boolean; about 32 KB).
 *
 * Stacks (the first argument):
 * - `node`: node:http, `JSON.stringify` per request;
 * - `fastify`: Fastify, `reply.send` of the object (JSON.stringify), as the
 *   read bench's baseline serves;
 * - `effect`: Effect's HttpApi as the service builds it (a contract group,
 *   `HttpApiBuilder.layer`, `HttpRouter.serve` without its logger,
 *   NodeHttpServer), the success bodies declared as Schema structs without
 *   checks and encoded by the contract, handlers that only return the data.
 *
 *   node bench/stackServer.ts <port> <node|fastify|effect>
 */
import { createServer } from "node:http"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { HttpRouter } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import Fastify from "fastify"

const [port, stack] = process.argv.slice(2)
if ((stack !== "node" && stack !== "fastify" && stack !== "effect") || port === undefined)
  throw new Error("usage: stackServer.ts <port> <node|fastify|effect>")

export const health = { status: "ok" as const }

/** A record of the size and shape of a protocol list item. */
const item = (i: number) => ({
  id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  slug: `protocol-${i}`,
  name: `Protocol ${i}`,
  entity_type: "protocol",
  categories: ["lending", "dex"],
  chain_slugs: ["ethereum", "arbitrum", "base"],
  grade: "A-",
  composite_score: 81.25 + i / 100,
  confidence: 0.9,
  status: "published",
  is_demo: false,
  qri: i % 3 === 0 ? null : 62.5,
  website: `https://protocol-${i}.example.org`,
  description: "A lending market with isolated pools and an oracle of its own. ".repeat(5),
  rated_at: "2026-11-01T12:00:00.000Z",
  updated_at: "2026-11-02T08:30:00.000Z"
})

export const items = {
  items: Array.from({ length: 50 }, (_, i) => item(i)),
  total: 10_000,
  skip: 0,
  limit: 50
}

const listen = (p: number) => {
  if (stack === "node") {
    const server = createServer((request, response) => {
      const body = request.url === "/items" ? JSON.stringify(items) : JSON.stringify(health)
      response.writeHead(200, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body)
      })
      response.end(body)
    })
    server.keepAliveTimeout = 60_000
    server.listen(p, "127.0.0.1")
    process.on("SIGTERM", () => server.close(() => process.exit(0)))
    return
  }
  if (stack === "fastify") {
    const app = Fastify({ logger: false, keepAliveTimeout: 60_000 })
    app.get("/health", async () => health)
    app.get("/items", async () => items)
    void app.listen({ port: p, host: "127.0.0.1" })
    process.on("SIGTERM", () => void app.close().then(() => process.exit(0)))
    return
  }
  const Item = Schema.Struct({
    id: Schema.String,
    slug: Schema.String,
    name: Schema.String,
    entity_type: Schema.String,
    categories: Schema.Array(Schema.String),
    chain_slugs: Schema.Array(Schema.String),
    grade: Schema.String,
    composite_score: Schema.Number,
    confidence: Schema.Number,
    status: Schema.String,
    is_demo: Schema.Boolean,
    qri: Schema.NullOr(Schema.Number),
    website: Schema.String,
    description: Schema.String,
    rated_at: Schema.String,
    updated_at: Schema.String
  })
  const Page = Schema.Struct({
    items: Schema.Array(Item),
    total: Schema.Number,
    skip: Schema.Number,
    limit: Schema.Number
  })
  const Health = Schema.Struct({ status: Schema.Literal("ok") })
  class Group extends HttpApiGroup.make("stack", { topLevel: true })
    .add(HttpApiEndpoint.get("health", "/health", { success: Health }))
    .add(HttpApiEndpoint.get("items", "/items", { success: Page })) {}
  class Api extends HttpApi.make("stack").add(Group) {}
  const handlers = HttpApiBuilder.group(Api, "stack", (h) =>
    h.handle("health", () => Effect.succeed(health)).handle("items", () => Effect.succeed(items))
  )
  const server = HttpRouter.serve(HttpApiBuilder.layer(Api).pipe(Layer.provide(handlers)), {
    disableLogger: true
  }).pipe(
    Layer.provide(
      NodeHttpServer.layer(() => createServer({ keepAliveTimeout: 60_000 }), { port: p, host: "127.0.0.1" })
    )
  )
  NodeRuntime.runMain(Layer.launch(server))
}

listen(Number(port))
