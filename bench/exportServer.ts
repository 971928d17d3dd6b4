/**
 * Export memory benchmark child process (bench/exportMemory.bench.ts): the
 * production server (`serve` over the production layers, as bench/readServer.ts
 * composes it), plus one baseline route beside it, and a memory probe the
 * parent drives over IPC.
 *
 * - `GET /api/v1/export.csv`: ours. The domain's ExportService reads the
 *   published entities a page at a time (keyset paging, each page with its own
 *   latest-scorecard lookup) as the response stream is pulled.
 * - `GET /baseline/export.csv?entity=protocol&fields=...&limit=N`: the
 *   straightforward export that the streamed one replaced: every record and
 *   every latest scorecard read first, every row built, the whole document
 *   written as one string, then sent. Same ports, same row builder
 *   (`rowOf`) and same CSV writer, so the two differ only in materialising.
 *   The watermark column holds a fixed placeholder (this route records nothing).
 *
 * Probe (run node with --expose-gc): `{type:"start"}` collects garbage twice
 * and notes heapUsed + external (what JavaScript and the Buffers being sent
 * hold); then, until `{type:"stop"}`, every LIVE_MS (10) milliseconds it runs a
 * full collection and samples that footprint again (the live peak: what the
 * exports hold), and every millisecond samples it without collecting (the raw
 * peak, floating garbage included) and RSS. `stop` answers the three peaks
 * above the start.
 *
 *   node --expose-gc bench/exportServer.ts <port> <database-url>
 */
import { NodeRuntime } from "@effect/platform-node"
import { csvLine, csvRows } from "@ratings/adapters-http/server/Csv"
import { serve } from "@ratings/adapters-http/server/HttpServerLive"
import { parseFields, WatermarkField } from "@ratings/domain/model/ExportFields"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { rowOf } from "@ratings/domain/services/ExportService"
import { application, database } from "@ratings/server/Layers"
import { Effect, Layer, Redacted, Result } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

const [port, url] = process.argv.slice(2)
if (port === undefined || url === undefined) throw new Error("usage: exportServer.ts <port> <database-url>")
const gcFunction = (globalThis as { gc?: () => void }).gc
if (gcFunction === undefined) throw new Error("run with --expose-gc")
const gc: () => void = gcFunction
const LiveMs = Number(process.env.LIVE_MS ?? 10)

export const BaselineWatermark = "baseline"

const key = Redacted.make(Buffer.alloc(32, 7).toString("base64"))
const app = application(key).pipe(Layer.provideMerge(database(url)))

const baselineRoute = Layer.unwrap(
  Effect.gen(function* () {
    const entities = yield* EntityRepository
    const scorecards = yield* ScorecardRepository
    return HttpRouter.add(
      "GET",
      "/baseline/export.csv",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const query = new URL(request.url, "http://localhost").searchParams
        const limit = Number(query.get("limit") ?? 1000)
        const fields = Result.getOrThrow(parseFields(query.get("fields") ?? ""))
        const records = yield* entities.published("protocol", limit)
        const cards = yield* scorecards.latestPublishedOf(
          "protocol",
          records.map((r) => r.id)
        )
        const rows = records.map((r) => rowOf(r, cards.get(r.id), fields, BaselineWatermark))
        const columns = [...fields, WatermarkField]
        return HttpServerResponse.text(csvLine(columns) + csvRows(columns, rows), {
          contentType: "text/csv; charset=utf-8"
        })
      }).pipe(Effect.orDie)
    )
  })
).pipe(Layer.provide(app), Layer.orDie)

// ------------------------------------------------------------------ probe

const footprint = () => {
  const m = process.memoryUsage()
  return { js: m.heapUsed + m.external, rss: m.rss }
}
let samplers: ReadonlyArray<ReturnType<typeof setInterval>> = []
let start = footprint()
let peak = { live: 0, js: 0, rss: 0 }
process.on("message", (message: { readonly type?: string }) => {
  if (message.type === "start") {
    gc()
    gc()
    start = footprint()
    peak = { live: start.js, js: start.js, rss: start.rss }
    samplers = [
      // What is held: a full collection, then the footprint (every LIVE_MS).
      setInterval(() => {
        gc()
        peak.live = Math.max(peak.live, footprint().js)
      }, LiveMs),
      // What the heap grows to between collections V8 chooses itself, garbage included.
      setInterval(() => {
        const now = footprint()
        peak.js = Math.max(peak.js, now.js)
        peak.rss = Math.max(peak.rss, now.rss)
      }, 1)
    ]
    process.send?.({ type: "start" })
  } else if (message.type === "stop") {
    for (const s of samplers) clearInterval(s)
    process.send?.({
      type: "stop",
      live: peak.live - start.js,
      js: peak.js - start.js,
      rss: peak.rss - start.rss,
      idleJs: start.js
    })
  }
})

const server = serve({
  port: Number(port),
  host: "127.0.0.1",
  routes: baselineRoute
}).pipe(Layer.provide(app))

NodeRuntime.runMain(Layer.launch(server))
