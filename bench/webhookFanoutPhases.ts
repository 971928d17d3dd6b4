/**
 * The parts of the webhook fan-out benchmark (bench/webhookFanout.bench.ts)
 * that its phases share: the dataset, the plain-undici baseline, the
 * signature check, the receiver child processes, the dispatcher (in
 * this process or in N child processes on the same database), the outbox
 * snapshot each phase starts from, the wait for a phase to end, and the
 * check that every delivery reached its receiver exactly once with one
 * delivered attempt.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { createHash, createHmac, timingSafeEqual } from "node:crypto"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as HmacSigner from "@ratings/adapters-webhook/HmacSigner"
import * as UndiciTransport from "@ratings/adapters-webhook/UndiciTransport"
import type { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import type { DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import { WebhookDispatcher } from "@ratings/domain/services/WebhookDispatcher"
import { signingKeyFromBytes } from "@ratings/domain/webhooks/WebhookSignature"
import { type Context, Duration, Effect, Layer, type Scope } from "effect"
import type { SqlClient } from "effect/sql"
import { Webhook } from "standardwebhooks"
import { Agent } from "undici"
import type { ReceiverReport } from "./webhookReceiver.ts"

export interface Rate {
  readonly requests: number
  readonly ms: number
  readonly perSecond: number
}

export interface DispatcherBounds {
  readonly concurrency: number
  readonly hostConcurrency: number
}

/** The production dispatcher with its loop, over the stores of `app`, as a server process runs it. */
export const dispatcherLayer = (
  app: Context.Context<AlertRuleRepository | DeliveryOutbox>,
  bounds: DispatcherBounds
) =>
  WebhookDispatcher.layer(bounds).pipe(
    Layer.provide(
      Layer.mergeAll(
        HmacSigner.layer,
        UndiciTransport.layer({
          allowPrivateTargets: true,
          requireHttps: false,
          maxConnectionsPerOrigin: Math.max(
            UndiciTransport.defaultMaxConnectionsPerOrigin,
            2 * bounds.hostConcurrency
          )
        })
      )
    ),
    Layer.provide(Layer.succeedContext(app))
  )

// ---------------------------------------------------------------- children

const ask = <A>(child: ChildProcess, message: { readonly type: string }, reply = message.type): Promise<A> =>
  new Promise((resolve, reject) => {
    const onMessage = (answer: { readonly type?: string }) => {
      if (answer.type !== reply) return
      child.off("message", onMessage)
      child.off("exit", onExit)
      resolve(answer as A)
    }
    const onExit = (code: number | null) => {
      child.off("message", onMessage)
      reject(new Error(`a child process exited (${code}) before answering ${message.type}`))
    }
    child.on("message", onMessage)
    child.once("exit", onExit)
    child.send(message)
  })

const exited = (child: ChildProcess, signal: NodeJS.Signals) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill(signal)
  })

/** A child process of this directory, once it sent its first message of `type`; killed when the scope closes. */
const child = <M extends { readonly type?: string }>(
  script: string,
  args: ReadonlyArray<string>,
  type: string
) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ readonly child: ChildProcess; readonly message: M }>((resolve, reject) => {
          const c = spawn(process.execPath, [join(import.meta.dirname, script), ...args], {
            stdio: ["ignore", "inherit", "inherit", "ipc"]
          })
          c.once("error", reject)
          c.once("exit", (code) => reject(new Error(`${script} exited (${code}) before it was ready`)))
          c.on("message", (m: M) => {
            if (m.type === type) resolve({ child: c, message: m })
          })
        })
    ),
    ({ child }) => Effect.promise(() => exited(child, "SIGTERM"))
  )

export interface ReceiverProcess {
  readonly origin: string
  readonly pid: number
  readonly reset: () => Promise<void>
  readonly report: () => Promise<ReceiverReport>
}

/** A receiver (bench/webhookReceiver.ts) keeping every `sample`-th request, answering after `delayMs`. */
export const startReceiver = (sample: number, delayMs = 0) =>
  Effect.map(
    child<{ readonly type?: string; readonly port?: number }>(
      "webhookReceiver.ts",
      [String(sample), String(delayMs)],
      "ready"
    ),
    ({ child: c, message }): ReceiverProcess => ({
      origin: `http://127.0.0.1:${message.port}`,
      pid: c.pid ?? 0,
      reset: () => ask<unknown>(c, { type: "reset" }).then(() => undefined),
      report: () => ask<ReceiverReport>(c, { type: "report" })
    })
  )

/**
 * `processes` dispatcher processes (bench/webhookDispatcherProcess.ts) on the
 * database at `url`, built and waiting; the effect returned starts them all.
 * They stop when the scope closes.
 */
export const startDispatcherProcesses = (
  url: string,
  processes: number,
  bounds: DispatcherBounds,
  serverKeyBase64: string
): Effect.Effect<Effect.Effect<void>, never, Scope.Scope> =>
  Effect.map(
    Effect.forEach(
      Array.from({ length: processes }, () => 0),
      () =>
        child(
          "webhookDispatcherProcess.ts",
          [url, String(bounds.concurrency), String(bounds.hostConcurrency), serverKeyBase64],
          "ready"
        ),
      { concurrency: "unbounded" }
    ),
    (children) =>
      Effect.sync(() => {
        for (const { child: c } of children) c.send({ type: "start" })
      })
  )

// ------------------------------------------------------------------ outbox

/** Copies the outbox as the publish left it, so each phase starts from the very same deliveries. */
export const snapshotOutbox = (sql: SqlClient.SqlClient) =>
  sql`CREATE TABLE bench_outbox AS SELECT * FROM webhook_deliveries`

/** The outbox back to the snapshot (all pending, no attempts), less the deliveries of `without` rules. */
export const restoreOutbox = (sql: SqlClient.SqlClient, without: "slow rules" | "none") =>
  Effect.orDie(
    Effect.gen(function* () {
      yield* sql`TRUNCATE webhook_delivery_attempts, webhook_deliveries`
      yield* without === "none"
        ? sql`INSERT INTO webhook_deliveries OVERRIDING SYSTEM VALUE SELECT * FROM bench_outbox`
        : sql`
          INSERT INTO webhook_deliveries OVERRIDING SYSTEM VALUE
          SELECT * FROM bench_outbox WHERE rule_id NOT IN (SELECT rule_id FROM bench_slow_rules)
        `
    })
  )

interface OutboxState {
  /** Deliveries not yet delivered nor failed. */
  readonly pending: number
  /** Pending deliveries of rules pointing at the fast receiver. */
  readonly fastPending: number
  readonly failed: number
  readonly retrying: number
}

/**
 * Polls the outbox every `PollMs` from `started` until `done`, and returns
 * when it was first seen so (ms since `started`). It counts what is left
 * (pending, through the outbox's own partial indexes), so a poll costs less
 * as the phase drains; polled any more often, the count competes for the
 * CPU with the dispatcher and its Postgres backends. Any failed
 * attempt stops the run: a retry is 30 s away, and a figure including one is
 * meaningless.
 */
const PollMs = 100

export const waitForOutbox = (
  sql: SqlClient.SqlClient,
  started: number,
  timeoutMs: number,
  done: (state: OutboxState) => boolean
) =>
  Effect.gen(function* () {
    for (;;) {
      const [state] = yield* sql<OutboxState>`
        SELECT count(*)::int AS pending,
               count(*) FILTER (WHERE rule_id NOT IN (SELECT rule_id FROM bench_slow_rules))::int AS "fastPending",
               count(*) FILTER (WHERE attempts > 0)::int AS retrying,
               (SELECT count(*) FROM webhook_deliveries WHERE status = 'failed')::int AS failed
        FROM webhook_deliveries WHERE status = 'pending'
      `
      if (done(state!)) return performance.now() - started
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
        return yield* Effect.die(new Error(`${state!.pending} still pending after ${timeoutMs} ms`))
      yield* Effect.sleep(Duration.millis(PollMs))
    }
  }).pipe(Effect.orDie)

/**
 * Every delivery of the outbox reached the receivers exactly once (all of
 * them together) and nothing else did; each has one attempt, delivered.
 * Returns the reports, for the signatures they sampled.
 */
export const checkExactlyOnce = (sql: SqlClient.SqlClient, receivers: ReadonlyArray<ReceiverProcess>) =>
  Effect.gen(function* () {
    const outbox = yield* sql<{ readonly delivery_id: string; readonly body: string }>`
      SELECT delivery_id, body FROM webhook_deliveries ORDER BY seq
    `
    const reports = yield* Effect.promise(() => Promise.all(receivers.map((r) => r.report())))
    const expected = new Set(outbox.map((r) => r.delivery_id))
    const seen = new Map<string, number>()
    for (const report of reports) for (const [id, n] of report.ids) seen.set(id, (seen.get(id) ?? 0) + n)
    const wrong = [...seen].filter(([id, n]) => n !== 1 || !expected.has(id))
    const withoutId = reports.reduce((n, r) => n + r.withoutId, 0)
    if (seen.size !== outbox.length || wrong.length > 0 || withoutId > 0)
      return yield* Effect.die(
        new Error(
          `receivers saw ${seen.size} distinct deliveries of ${outbox.length}, ` +
            `${wrong.length} duplicated or unknown, ${withoutId} without webhook-id`
        )
      )
    const [attempts] = yield* sql<{ readonly n: number; readonly delivered: number }>`
      SELECT count(*)::int AS n, count(*) FILTER (WHERE outcome = 'delivered')::int AS delivered
      FROM webhook_delivery_attempts
    `
    if (attempts!.n !== outbox.length || attempts!.delivered !== outbox.length)
      return yield* Effect.die(
        new Error(
          `${attempts!.n} attempts recorded (${attempts!.delivered} delivered) for ${outbox.length} deliveries`
        )
      )
    return { outbox, reports }
  }).pipe(Effect.orDie)

// ----------------------------------------------------------------- dataset

const docPath = join(import.meta.dirname, "..", "docs", "import-format.md")

/** The documented import example, plus a third version of lendwell left as a draft, with lower scores. */
export const exampleWithDraft = (): unknown => {
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
export const seededUuid = (seed: string, i: number): string => {
  const b = digest(seed, "rule", i).subarray(0, 16)
  b[6] = (b[6]! & 0x0f) | 0x40
  b[8] = (b[8]! & 0x3f) | 0x80
  const h = b.toString("hex")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

export const seededSigningKey = (seed: string, i: number): string =>
  signingKeyFromBytes(new Uint8Array(digest(seed, "key", i)))

// ---------------------------------------------------------------- baseline

/** `bodies` POSTed by `concurrency` workers over one plain undici Agent; each answer read to its end. */
export const plainPosts = async (
  url: string,
  bodies: ReadonlyArray<string>,
  concurrency: number
): Promise<Rate> => {
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

export const verifySample = (
  samples: ReceiverReport["samples"],
  keyOf: ReadonlyMap<string, string>
): number => {
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
