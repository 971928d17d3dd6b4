/**
 * The webhook receiver of the fan-out benchmark (bench/webhookFanout.bench.ts),
 * run as a child process so that its HTTP parsing does not share an event loop
 * with the sender under test: the dispatcher and the plain-undici baseline
 * then each compete with the same separate receiver, as they would with a
 * real one.
 *
 * node:http on 127.0.0.1 (ephemeral port); every POST is read to its end and
 * answered 204, after `delayMs` (a slow receiver) if given. It counts requests,
 * the most it had open at once, and, per `webhook-id`, how often each id
 * arrived (the parent checks "exactly once" against the outbox), and keeps the
 * raw bytes and signature headers of every `sampleEvery`-th request so the
 * parent can verify signatures on what was really received. It only
 * remembers: any check is the parent's, after the timed phase.
 *
 * IPC protocol (process.send): on start it sends `{ type: "ready", port }`;
 * `{ type: "reset" }` clears the counts and is answered `{ type: "reset" }`;
 * `{ type: "report" }` is answered with a `ReceiverReport`.
 *
 *   node bench/webhookReceiver.ts <sampleEvery> [delayMs]
 */
import { createServer } from "node:http"

export interface ReceivedSample {
  readonly headers: Readonly<Record<string, string>>
  /** The body exactly as received, base64. */
  readonly raw: string
}

export interface ReceiverReport {
  readonly type: "report"
  readonly requests: number
  /** The most requests open (arrived, not yet answered) at once. */
  readonly maxOpen: number
  readonly bytes: number
  /** Requests that carried no webhook-id (the baseline's plain POSTs). */
  readonly withoutId: number
  /** Each webhook-id received, with how many times it arrived. */
  readonly ids: ReadonlyArray<readonly [string, number]>
  readonly samples: ReadonlyArray<ReceivedSample>
}

const SampledHeaders = ["x-service-signature", "webhook-id", "webhook-timestamp", "webhook-signature"]

const sampleEvery = Math.max(1, Number(process.argv[2] ?? 100))
const delayMs = Math.max(0, Number(process.argv[3] ?? 0))

let requests = 0
let open = 0
let maxOpen = 0
let bytes = 0
let withoutId = 0
let withId = 0
let ids = new Map<string, number>()
let samples: Array<ReceivedSample> = []

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks: Array<Buffer> = []
  open++
  maxOpen = Math.max(maxOpen, open)
  res.once("close", () => open--)
  req.on("data", (chunk: Buffer) => chunks.push(chunk))
  req.on("end", () => {
    requests++
    const raw = Buffer.concat(chunks)
    bytes += raw.length
    const id = req.headers["webhook-id"]
    if (typeof id === "string") {
      ids.set(id, (ids.get(id) ?? 0) + 1)
      if (withId++ % sampleEvery === 0) {
        const headers: Record<string, string> = {}
        for (const name of SampledHeaders) {
          const value = req.headers[name]
          if (typeof value === "string") headers[name] = value
        }
        samples.push({ headers, raw: raw.toString("base64") })
      }
    } else {
      withoutId++
    }
    res.statusCode = 204
    if (delayMs > 0) setTimeout(() => res.end(), delayMs)
    else res.end()
  })
})

process.on("message", (message: { readonly type?: string }) => {
  if (message.type === "reset") {
    requests = 0
    maxOpen = open
    bytes = 0
    withoutId = 0
    withId = 0
    ids = new Map()
    samples = []
    process.send?.({ type: "reset" })
  } else if (message.type === "report") {
    const report: ReceiverReport = {
      type: "report",
      requests,
      maxOpen,
      bytes,
      withoutId,
      ids: [...ids],
      samples
    }
    process.send?.(report)
  }
})

// The parent going away (or closing the channel) ends the receiver.
process.on("disconnect", () => {
  server.closeAllConnections()
  server.close()
})

server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  process.send?.({ type: "ready", port })
})
