/**
 * One dispatcher process of the webhook fan-out benchmark's `--processes`
 * phase (bench/webhookFanout.bench.ts): a server process's dispatcher
 * (WebhookDispatcher.layer over PgDeliveryOutbox, HmacSigner and the undici
 * transport, private targets allowed) on the benchmark's database, and
 * nothing else, so that N of them share one outbox as N servers do.
 *
 * IPC protocol: once its stores are built it sends `{ type: "ready" }`;
 * `{ type: "start" }` starts the dispatcher; `{ type: "stop" }` stops it
 * (claims it holds are left to their leases) and the process exits.
 *
 *   node bench/webhookDispatcherProcess.ts <databaseUrl> <concurrency> <hostConcurrency> <serverKeyBase64>
 */
import { Effect, Layer, Redacted } from "effect"
import { dispatcherLayer } from "./webhookFanoutPhases.ts"
import { application, database } from "@ratings/server/Layers"

const [url, concurrency, hostConcurrency, serverKey] = process.argv.slice(2)

const nextMessage = (type: string) =>
  Effect.callback<void>((resume) => {
    const onMessage = (m: { readonly type?: string }) => {
      if (m.type !== type) return
      process.off("message", onMessage)
      resume(Effect.void)
    }
    process.on("message", onMessage)
  })

const main = Effect.gen(function* () {
  const app = yield* Layer.build(
    application(Redacted.make(serverKey!)).pipe(Layer.provideMerge(database(url!)))
  )
  process.send?.({ type: "ready" })
  yield* nextMessage("start")
  yield* Layer.build(
    dispatcherLayer(app, { concurrency: Number(concurrency), hostConcurrency: Number(hostConcurrency) })
  )
  yield* nextMessage("stop")
})

process.on("disconnect", () => process.exit(0))
Effect.runPromise(Effect.scoped(main)).then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
