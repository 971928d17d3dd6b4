/**
 * Webhook fan-out benchmark: one publish fanned out to
 * 10,000 alert rules, delivered to a local receiver by the real dispatcher,
 * against plain undici POSTs to the same receiver in the same run.
 *
 * On a fresh, migrated database: the documented import example (with a new
 * draft of `lendwell`) is imported; N alert rules are stored through
 * PgAlertRuleRepository (keys sealed by the SecretBox), all watching
 * protocol/lendwell for every event kind and pointing at the receiver; ONE
 * re-rating of lendwell is published through the domain Publisher over the
 * Postgres stores, which enqueues one delivery per rule per event in its
 * transaction (timed). Then the production dispatcher (WebhookDispatcher.layer,
 * its `run` loop over PgDeliveryOutbox, HmacSigner and the undici transport
 * with private targets allowed) runs until every delivery is delivered (timed
 * from its start). Finally the very same bodies are POSTed with plain undici,
 * at the dispatcher's concurrency, to the same receiver: the ceiling a sender
 * without an outbox, signatures or attempt log reaches on this machine.
 *
 * Checked, not assumed: every delivery of the outbox reached the receiver
 * exactly once and no other arrived; every delivery has exactly one attempt,
 * delivered; the signatures of a sample of received requests verify on the
 * raw bytes (node:crypto for X-Service-Signature, the standardwebhooks package
 * for the Standard Webhooks headers). Any failed attempt stops the run: a
 * retry is 30 s away, and a figure that includes one would be meaningless.
 *
 * The receiver is a child process (bench/webhookReceiver.ts), so its HTTP
 * parsing does not share an event loop with either sender. The dispatcher is
 * started only after the publish commits, so its figure is not padded by the
 * poll interval a running dispatcher would wait at most.
 *
 *   DATABASE_URL=postgres://root@127.0.0.1:5432/test npm run bench:webhooks [-- --rules 1000]
 *   (without DATABASE_URL an embedded Postgres is started)
 *   options: --rules 10000 --concurrency 16 (the dispatcher's default) --seed 1 --sample 100
 *   (verify every 100th received request's signatures); KEEP=1 keeps the database
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import * as HmacSigner from "@ratings/adapters-webhook/HmacSigner"
import * as UndiciTransport from "@ratings/adapters-webhook/UndiciTransport"
import { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import { Publisher } from "@ratings/domain/services/Publisher"
import { WebhookDispatcher } from "@ratings/domain/services/WebhookDispatcher"
import { signingKeyFromBytes } from "@ratings/domain/webhooks/WebhookSignature"
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { application, database } from "@ratings/server/Layers"
import { Context, Duration, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { Webhook } from "standardwebhooks"
import { Agent } from "undici"
import { machineLine, postgresVersion, runMain, withPostgresServer, withScratchDatabase } from "./harness.ts"
import type { ReceiverReport } from "./webhookReceiver.ts"

export interface FanoutOptions {
  /** Alert rules, all watching the re-rated entity. */
  readonly rules: number
  /** Sends in flight: the dispatcher's bound, and the baseline's workers. */
  readonly concurrency: number
  /** Derives the rule ids and signing keys, so a run can be repeated with the same rules. */
  readonly seed: string
  /** The receiver keeps every `sample`-th request; those signatures are verified. */
  readonly sample: number
  /** The dispatch phase gives up after this long. */
  readonly timeoutMs?: number | undefined
  /** Plain POSTs sent before the publish, to warm the receiver (default: min(1000, rules)). */
  readonly warmup?: number | undefined
}

export interface Rate {
  readonly requests: number
  readonly ms: number
  readonly perSecond: number
}

export interface FanoutResult {
  readonly options: FanoutOptions
  readonly rules: number
  readonly events: number
  readonly deliveries: number
  readonly bodyBytes: number
  readonly createRulesMs: number
  /** Publisher.publish of the re-rating: read, score, match rules, write scorecard and outbox in one transaction. */
  readonly publishMs: number
  readonly dispatch: Rate
  /** Enqueue (the publish's commit) to the end of each delivered attempt, ms. */
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number }
  readonly baseline: Rate
  /** Deliveries that reached the receiver exactly once (all of them, or the run fails). */
  readonly deliveredOnce: number
  readonly signaturesVerified: number
}

// ----------------------------------------------------------------- dataset

const docPath = join(import.meta.dirname, "..", "docs", "import-format.md")

/** The documented import example, plus a third version of lendwell left as a draft, with lower scores. */
const exampleWithDraft = (): unknown => {
  const data = JSON.parse(
    /<!-- import-example:begin -->\s*```json\n([\s\S]*?)```/.exec(readFileSync(docPath, "utf8"))![1]!
  )
  const v3 = structuredClone(data.scorecards[1])
  v3.id = "7d3f0a4e-9a8b-4c1d-8e2f-3a4b5c6d7e8f"
  v3.scorecard_version = 3
  delete v3.composite_score
  v3.answers = v3.answers.map((a: { score: number | null }, i: number) => ({
    ...a,
    id: `7d3f0a4e-9a8b-4c1d-8e2f-3a4b5c6d7e${(90 + i).toString(16)}`,
    score: a.score === null ? null : 1
  }))
  data.scorecards.push(v3)
  return data
}

const digest = (seed: string, what: string, i: number): Buffer =>
  createHash("sha256").update(`${seed}:${what}:${i}`).digest()

/** A v4-shaped UUID from the seed, so rule ids repeat across runs of one seed. */
const seededUuid = (seed: string, i: number): string => {
  const b = digest(seed, "rule", i).subarray(0, 16)
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const h = b.toString("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

const seededSigningKey = (seed: string, i: number): string =>
  signingKeyFromBytes(new Uint8Array(digest(seed, "key", i)))

// ---------------------------------------------------------------- receiver

interface ReceiverProcess {
  readonly origin: string
  readonly reset: () => Promise<void>
  readonly report: () => Promise<ReceiverReport>
}

const ask = <A>(child: ChildProcess, message: { readonly type: string }): Promise<A> =>
  new Promise((resolve, reject) => {
    const onMessage = (reply: { readonly type?: string }) => {
      if (reply.type !== message.type) return
      child.off("message", onMessage)
      child.off("exit", onExit)
      resolve(reply as A)
    }
    const onExit = (code: number | null) => {
      child.off("message", onMessage)
      reject(new Error(`the receiver exited (${code}) before answering ${message.type}`))
    }
    child.on("message", onMessage)
    child.once("exit", onExit)
    child.send(message)
  })

const startReceiver = (sample: number) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ readonly child: ChildProcess; readonly port: number }>((resolve, reject) => {
          const child = spawn(
            process.execPath,
            [join(import.meta.dirname, "webhookReceiver.ts"), String(sample)],
            {
              stdio: ["ignore", "inherit", "inherit", "ipc"]
            }
          )
          child.once("error", reject)
          child.once("exit", (code) => reject(new Error(`the receiver exited (${code}) before listening`)))
          child.once("message", (m: { readonly type?: string; readonly port?: number }) => {
            if (m.type === "ready" && m.port !== undefined) resolve({ child, port: m.port })
          })
        })
    ),
    ({ child }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve()
            child.once("exit", () => resolve())
            child.kill("SIGTERM")
          })
      )
  ).pipe(
    Effect.map(
      ({ child, port }): ReceiverProcess => ({
        origin: `http://127.0.0.1:${port}`,
        reset: () => ask<unknown>(child, { type: "reset" }).then(() => undefined),
        report: () => ask<ReceiverReport>(child, { type: "report" })
      })
    )
  )

// ---------------------------------------------------------------- baseline

/** `bodies` POSTed by `concurrency` workers over one plain undici Agent; each answer read to its end. */
const plainPosts = async (url: string, bodies: ReadonlyArray<string>, concurrency: number): Promise<Rate> => {
  const target = new URL(url)
  const agent = new Agent()
  let next = 0
  let failed = 0
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!
      const response = await agent.request({
        origin: target.origin,
        path: target.pathname,
        method: "POST",
        headers: { "content-type": "application/json" },
        body
      })
      await response.body.dump()
      if (response.statusCode < 200 || response.statusCode > 299) failed++
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: Math.min(concurrency, bodies.length) }, worker))
  const ms = performance.now() - started
  await agent.close()
  if (failed > 0) throw new Error(`${failed} plain POSTs were not answered 2xx`)
  return { requests: bodies.length, ms, perSecond: bodies.length / (ms / 1000) }
}

// ------------------------------------------------------------------- checks

const verifySample = (samples: ReceiverReport["samples"], keyOf: ReadonlyMap<string, string>): number => {
  for (const s of samples) {
    const raw = Buffer.from(s.raw, "base64")
    const ruleId = (JSON.parse(raw.toString("utf8")) as { readonly watchlist_id: string }).watchlist_id
    const key = keyOf.get(ruleId)
    if (key === undefined)
      throw new Error(`a received body names rule ${ruleId}, which the bench did not create`)
    const expected = Buffer.from(createHmac("sha256", key).update(raw).digest("hex"))
    const got = Buffer.from(s.headers["x-service-signature"] ?? "")
    if (expected.length !== got.length || !timingSafeEqual(expected, got))
      throw new Error(`X-Service-Signature of delivery ${s.headers["webhook-id"]} does not verify`)
    // Throws WebhookVerificationError on a bad signature or a stale timestamp.
    new Webhook(key).verify(raw.toString("utf8"), {
      "webhook-id": s.headers["webhook-id"] ?? "",
      "webhook-timestamp": s.headers["webhook-timestamp"] ?? "",
      "webhook-signature": s.headers["webhook-signature"] ?? ""
    })
  }
  return samples.length
}

// --------------------------------------------------------------------- run

const serverKey = Redacted.make(Buffer.alloc(32, 7).toString("base64"))

/**
 * The whole benchmark on `url`, a fresh database (migrated here). Fails if
 * any delivery is not delivered exactly once or a sampled signature does not
 * verify.
 */
export const runFanout = (url: string, options: FanoutOptions) =>
  Effect.gen(function* () {
    const { rules, concurrency, seed, sample } = options
    const timeoutMs = options.timeoutMs ?? 600_000
    const receiver = yield* startReceiver(sample)
    const webhookUrl = `${receiver.origin}/webhook`

    const app = yield* Layer.build(application(serverKey).pipe(Layer.provideMerge(database(url))))
    const sql = Context.get(app, SqlClient.SqlClient)

    // 1. The entity with a published scorecard and a new draft: the documented example.
    const dir = mkdtempSync(join(tmpdir(), "bench-webhooks-"))
    writeFileSync(join(dir, "example.json"), JSON.stringify(exampleWithDraft()))
    const imported = yield* importPath(dir).pipe(Effect.provideContext(app))
    rmSync(dir, { recursive: true, force: true })
    if (imported._tag === "Rejected") return yield* Effect.die(new Error(formatIssues(imported.issues)))

    // 2. The rules, through the repository (keys sealed), all watching protocol/lendwell.
    const repository = yield* Effect.provideContext(Effect.service(AlertRuleRepository), app)
    const keyOf = new Map<string, string>()
    const createdAt = new Date().toISOString()
    const t0 = performance.now()
    yield* Effect.forEach(
      Array.from({ length: rules }, (_, i) => i),
      (i) => {
        const id = seededUuid(seed, i)
        const signing_key = seededSigningKey(seed, i)
        keyOf.set(id, signing_key)
        return repository.create({
          id,
          account_id: `bench-account-${i % 100}`,
          name: `bench rule ${i}`,
          entity_types: ["protocol"],
          slugs: ["lendwell"],
          events: [],
          channels: { webhook_url: webhookUrl },
          created_at: createdAt,
          signing_key
        })
      },
      { concurrency: 8, discard: true }
    )
    const createRulesMs = performance.now() - t0

    // Warm the receiver (and this process's undici) so neither timed phase pays for JIT; done
    // before the publish so the enqueue-to-delivered latency does not include it.
    const warmup = options.warmup ?? Math.min(1000, rules)
    if (warmup > 0) {
      const filler = JSON.stringify({ event: "warmup", data: "x".repeat(500) })
      yield* Effect.promise(() =>
        plainPosts(
          webhookUrl,
          Array.from({ length: warmup }, () => filler),
          concurrency
        )
      )
    }
    yield* Effect.promise(receiver.reset)

    // 3. One re-rating, published: the outbox rows are written in its transaction.
    const publisher = yield* Effect.provideContext(Effect.service(Publisher), app)
    const t1 = performance.now()
    const published = yield* publisher.publish({
      entity_type: "protocol",
      slug: "lendwell",
      reasoning: "webhook fan-out benchmark",
      actor: "bench"
    })
    const publishMs = performance.now() - t1
    const committedAt = Date.now()
    const deliveries = published.deliveries

    // 4. The dispatcher, as a server process runs it, until the outbox is all delivered.
    const dispatcher = WebhookDispatcher.layer({ concurrency }).pipe(
      Layer.provide(
        Layer.mergeAll(
          HmacSigner.layer,
          UndiciTransport.layer({ allowPrivateTargets: true, requireHttps: false })
        )
      ),
      Layer.provide(Layer.succeedContext(app))
    )
    const dispatchMs = yield* Effect.scoped(
      Effect.gen(function* () {
        const started = performance.now()
        yield* Layer.build(dispatcher)
        for (;;) {
          const [state] = yield* sql<{
            readonly delivered: number
            readonly failed: number
            readonly retrying: number
          }>`
            SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered,
                   count(*) FILTER (WHERE status = 'failed')::int AS failed,
                   count(*) FILTER (WHERE status = 'pending' AND attempts > 0)::int AS retrying
            FROM webhook_deliveries
          `
          if (state!.delivered === deliveries) return performance.now() - started
          if (state!.failed > 0 || state!.retrying > 0) {
            const errors = yield* sql<{ readonly last_error: string | null }>`
              SELECT DISTINCT last_error FROM webhook_deliveries WHERE status <> 'delivered' LIMIT 5
            `
            return yield* Effect.die(
              new Error(
                `${state!.failed + state!.retrying} deliveries had a failed attempt: ` +
                  errors.map((e) => e.last_error).join("; ")
              )
            )
          }
          if (performance.now() - started > timeoutMs)
            return yield* Effect.die(
              new Error(`only ${state!.delivered} of ${deliveries} delivered after ${timeoutMs} ms`)
            )
          yield* Effect.sleep(Duration.millis(20))
        }
      })
    )

    // Exactly once: the receiver saw each outbox delivery once and nothing else; one attempt each.
    const outbox = yield* sql<{ readonly delivery_id: string; readonly body: string }>`
      SELECT delivery_id, body FROM webhook_deliveries ORDER BY seq
    `
    if (outbox.length !== deliveries)
      return yield* Effect.die(
        new Error(`publish reported ${deliveries} deliveries, the outbox holds ${outbox.length}`)
      )
    const received = yield* Effect.promise(receiver.report)
    const expected = new Set(outbox.map((r) => r.delivery_id))
    const wrong = received.ids.filter(([id, n]) => n !== 1 || !expected.has(id))
    if (received.ids.length !== deliveries || wrong.length > 0 || received.withoutId > 0)
      return yield* Effect.die(
        new Error(
          `receiver saw ${received.ids.length} distinct deliveries of ${deliveries}, ` +
            `${wrong.length} duplicated or unknown, ${received.withoutId} without webhook-id`
        )
      )
    const [attempts] = yield* sql<{ readonly n: number; readonly delivered: number }>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE outcome = 'delivered')::int AS delivered
      FROM webhook_delivery_attempts
    `
    if (attempts!.n !== deliveries || attempts!.delivered !== deliveries)
      return yield* Effect.die(
        new Error(
          `${attempts!.n} attempts recorded (${attempts!.delivered} delivered) for ${deliveries} deliveries`
        )
      )
    const signaturesVerified = verifySample(received.samples, keyOf)

    const [latency] = yield* sql<{ readonly p50: number; readonly p99: number; readonly max: number }>`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::float8 AS p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::float8 AS p99,
             max(ms)::float8 AS max
      FROM (
        SELECT extract(epoch FROM started_at)::float8 * 1000 + duration_ms - ${committedAt}::float8 AS ms
        FROM webhook_delivery_attempts
      ) t
    `

    // 5. The same bodies, plain undici, same receiver, same concurrency.
    const bodies = outbox.map((r) => r.body)
    const bodyBytes = bodies.reduce((n, b) => n + Buffer.byteLength(b), 0)
    yield* Effect.promise(receiver.reset)
    const baseline = yield* Effect.promise(() => plainPosts(webhookUrl, bodies, concurrency))
    const afterBaseline = yield* Effect.promise(receiver.report)
    if (afterBaseline.requests !== deliveries)
      return yield* Effect.die(
        new Error(`receiver saw ${afterBaseline.requests} plain POSTs of ${deliveries}`)
      )

    return {
      options,
      rules,
      events: deliveries / rules,
      deliveries,
      bodyBytes,
      createRulesMs,
      publishMs,
      dispatch: { requests: deliveries, ms: dispatchMs, perSecond: deliveries / (dispatchMs / 1000) },
      latency: latency!,
      baseline,
      deliveredOnce: received.ids.length,
      signaturesVerified
    } satisfies FanoutResult
  })

// --------------------------------------------------------------------- main

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

const main = async () => {
  const { values } = parseArgs({
    options: {
      rules: { type: "string", default: process.env.RULES ?? "10000" },
      concurrency: { type: "string", default: process.env.CONCURRENCY ?? "16" },
      seed: { type: "string", default: process.env.SEED ?? "1" },
      sample: { type: "string", default: process.env.SAMPLE ?? "100" }
    }
  })
  const options: FanoutOptions = {
    rules: Number(values.rules),
    concurrency: Number(values.concurrency),
    seed: values.seed,
    sample: Number(values.sample)
  }
  for (const [name, value] of [
    ["rules", options.rules],
    ["concurrency", options.concurrency],
    ["sample", options.sample]
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      console.error(`--${name} must be a whole number >= 1, got ${values[name]}`)
      // Nothing is started yet, so there is nothing to clean up.
      process.exit(2)
    }
  }

  await withPostgresServer(async (serverUrl) => {
    console.log(machineLine(await postgresVersion(serverUrl)))
    console.log(
      `settings: rules ${fmt(options.rules)}, concurrency ${options.concurrency}, seed ${options.seed}, ` +
        `signatures verified on every ${options.sample}th request`
    )

    const r = await withScratchDatabase(serverUrl, "bench_webhooks", process.env.KEEP === "1", (db) =>
      Effect.runPromise(Effect.scoped(runFanout(db.url, options)))
    )

    const ratio = r.dispatch.perSecond / r.baseline.perSecond
    console.log(
      `webhook fan-out: ${fmt(r.rules)} rules x ${r.events} events = ${fmt(r.deliveries)} deliveries, ` +
        `${fmt(r.bodyBytes / r.deliveries)} bytes of body on average`
    )
    console.log(`  create rules (setup, not compared)   ${fmt(r.createRulesMs / 1000, 2).padStart(8)} s`)
    console.log(`  publish + enqueue (one transaction)  ${fmt(r.publishMs / 1000, 2).padStart(8)} s`)
    console.log(
      `  dispatcher                           ${fmt(r.dispatch.ms / 1000, 2).padStart(8)} s  ${fmt(r.dispatch.perSecond).padStart(8)} deliveries/s`
    )
    console.log(
      `  plain undici POSTs (baseline)        ${fmt(r.baseline.ms / 1000, 2).padStart(8)} s  ${fmt(r.baseline.perSecond).padStart(8)} requests/s`
    )
    console.log(`  ratio dispatcher/baseline            ${ratio.toFixed(3)}`)
    console.log(
      `  enqueue-to-delivered latency         p50 ${fmt(r.latency.p50)} ms, p99 ${fmt(r.latency.p99)} ms, max ${fmt(r.latency.max)} ms`
    )
    console.log(
      `  checked: ${fmt(r.deliveredOnce)} deliveries received exactly once, ` +
        `${fmt(r.signaturesVerified)} sampled signatures verified (node:crypto and standardwebhooks)`
    )
  })
}

if (import.meta.main) runMain(main)
