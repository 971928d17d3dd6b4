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
 * from its start). Then the very same bodies are POSTed with plain undici,
 * with as many in flight as the dispatcher may send to one host, to the same
 * receiver: the ceiling a sender without an outbox, signatures or attempt log
 * reaches on this machine.
 *
 * `--slow`: 10 % of the rules point at a second receiver that answers after
 * 500 ms. The main phase sends only the other 90 %; a second phase sends all
 * from the same outbox and times the fast 90 % alone, so their rate with and
 * without the slow ones compares in one run; each receiver's most requests
 * open at once shows the per-host bound. `--processes N`: the outbox (the
 * fast 90 %) is sent again by one dispatcher process, then by N processes on
 * the same database (bench/webhookDispatcherProcess.ts).
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
 *   options: --rules 10000 --concurrency 256 --host-concurrency 64 (the dispatcher's defaults)
 *   --slow --processes 2 --seed 1 --sample 100 (verify every 100th received request's
 *   signatures); KEEP=1 keeps the database
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { availableParallelism, tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import type { DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import { DefaultConcurrency, DefaultHostConcurrency } from "@ratings/domain/services/WebhookDispatcher"
import { Publisher } from "@ratings/domain/services/Publisher"
import { formatIssues, importPath } from "@ratings/demo-data/ImportFiles"
import { application, database } from "@ratings/server/Layers"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { type CpuBudget, withCpuBudget } from "./cpuBudget.ts"
import { ceiling } from "./webhookCeiling.ts"
import { machineLine, postgresVersion, runMain, withPostgresServer, withScratchDatabase } from "./harness.ts"
import {
  checkExactlyOnce,
  dispatcherLayer,
  exampleWithDraft,
  plainPosts,
  type Rate,
  type ReceiverProcess,
  restoreOutbox,
  seededSigningKey,
  seededUuid,
  snapshotOutbox,
  startDispatcherProcesses,
  startReceiver,
  verifySample,
  waitForOutbox
} from "./webhookFanoutPhases.ts"

export interface FanoutOptions {
  /** Alert rules, all watching the re-rated entity. */
  readonly rules: number
  /** The dispatcher's sends in flight. */
  readonly concurrency: number
  /** The dispatcher's sends in flight to one host; the baseline's workers. */
  readonly hostConcurrency: number
  /** Derives the rule ids and signing keys, so a run can be repeated with the same rules. */
  readonly seed: string
  /** The receiver keeps every `sample`-th request; those signatures are verified. */
  readonly sample: number
  /** 10 % of the rules at a receiver answering after `slowMs`, and the phase that sends them too. */
  readonly slow?: boolean | undefined
  readonly slowMs?: number | undefined
  /** Above 1: the phase with one dispatcher process, then this many. */
  readonly processes?: number | undefined
  /** Each dispatch phase gives up after this long. */
  readonly timeoutMs?: number | undefined
  /** Plain POSTs sent before the publish, to warm the receiver (default: min(1000, rules)). */
  readonly warmup?: number | undefined
}

export type { Rate }

const rate = (requests: number, ms: number): Rate => ({ requests, ms, perSecond: requests / (ms / 1000) })

export interface SlowResult {
  readonly slowDeliveries: number
  /** The fast deliveries, sent beside the slow ones: until the last fast one was delivered. */
  readonly fastWithSlow: Rate
  /** Until every delivery, slow ones included, was delivered. */
  readonly all: Rate
  /** The most requests each receiver had open at once in that phase. */
  readonly fastMaxOpen: number
  readonly slowMaxOpen: number
}

export interface FanoutResult {
  readonly options: FanoutOptions
  readonly rules: number
  readonly events: number
  /** Deliveries of the main phase (the fast receiver's). */
  readonly deliveries: number
  readonly bodyBytes: number
  readonly createRulesMs: number
  /** Publisher.publish of the re-rating: read, score, match rules, write scorecard and outbox in one transaction. */
  readonly publishMs: number
  readonly dispatch: Rate
  /** CPU time this process (the dispatcher, and the bench's progress poll) used meanwhile. */
  readonly dispatchCpuMs: number
  /** CPU of the database's backends and of the receiver meanwhile. */
  readonly dispatchBudget: CpuBudget
  /** Enqueue (the publish's commit) to the end of each delivered attempt, ms. */
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number }
  /** The most requests the receiver had open at once in the main phase. */
  readonly maxOpen: number
  readonly baseline: Rate
  readonly baselineCpuMs: number
  readonly baselineBudget: CpuBudget
  /** Deliveries that reached the receiver exactly once (all of them, or the run fails). */
  readonly deliveredOnce: number
  readonly signaturesVerified: number
  readonly slow?: SlowResult | undefined
  /** One dispatcher process, then `options.processes`. */
  readonly processes?: { readonly one: Rate; readonly many: Rate } | undefined
}

// --------------------------------------------------------------------- run

const serverKeyBase64 = Buffer.alloc(32, 7).toString("base64")
const serverKey = Redacted.make(serverKeyBase64)

/** Is rule `i` one of the slow receiver's (every tenth)? */
const isSlowRule = (options: FanoutOptions, i: number) => options.slow === true && i % 10 === 9

/** The dispatcher in this process from now until `done`; the ms it took. */
const dispatchInProcess = (
  app: Context.Context<AlertRuleRepository | DeliveryOutbox>,
  options: FanoutOptions,
  wait: (started: number) => Effect.Effect<number>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const started = performance.now()
      yield* Layer.build(dispatcherLayer(app, options))
      return yield* wait(started)
    })
  )

/**
 * The whole benchmark on `url`, a fresh database (migrated here). Fails if
 * any delivery is not delivered exactly once or a sampled signature does not
 * verify.
 */
export const runFanout = (url: string, options: FanoutOptions) =>
  Effect.gen(function* () {
    const { rules, seed, sample } = options
    const timeoutMs = options.timeoutMs ?? 600_000
    const receiver = yield* startReceiver(sample)
    const slowReceiver =
      options.slow === true ? yield* startReceiver(sample, options.slowMs ?? 500) : undefined
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
    const slowRules: Array<string> = []
    const createdAt = new Date().toISOString()
    const t0 = performance.now()
    yield* Effect.forEach(
      Array.from({ length: rules }, (_, i) => i),
      (i) => {
        const id = seededUuid(seed, i)
        const signing_key = seededSigningKey(seed, i)
        keyOf.set(id, signing_key)
        if (isSlowRule(options, i)) slowRules.push(id)
        return repository.create({
          id,
          account_id: `bench-account-${i % 100}`,
          name: `bench rule ${i}`,
          entity_types: ["protocol"],
          slugs: ["lendwell"],
          events: [],
          channels: { webhook_url: isSlowRule(options, i) ? `${slowReceiver!.origin}/webhook` : webhookUrl },
          created_at: createdAt,
          signing_key
        })
      },
      { concurrency: 8, discard: true }
    )
    const createRulesMs = performance.now() - t0
    yield* sql`CREATE TABLE bench_slow_rules (rule_id uuid PRIMARY KEY)`
    if (slowRules.length > 0) yield* sql`INSERT INTO bench_slow_rules SELECT unnest(${slowRules}::uuid[])`

    // Warm the receiver (and this process's undici) so neither timed phase pays for JIT; done
    // before the publish so the enqueue-to-delivered latency does not include it.
    const inFlightToOneHost = Math.min(options.concurrency, options.hostConcurrency)
    const warmup = options.warmup ?? Math.min(1000, rules)
    if (warmup > 0) {
      const filler = JSON.stringify({ event: "warmup", data: "x".repeat(500) })
      const bodies = Array.from({ length: warmup }, () => filler)
      yield* Effect.promise(() => plainPosts(webhookUrl, bodies, inFlightToOneHost))
    }
    yield* Effect.promise(receiver.reset)

    // 3. One re-rating, published: the outbox rows are written in its transaction. Each later
    // phase starts from a copy of it; the main phase sends the fast receiver's deliveries only.
    const publisher = yield* Effect.provideContext(Effect.service(Publisher), app)
    const t1 = performance.now()
    const published = yield* publisher.publish({
      entity_type: "protocol",
      slug: "lendwell",
      reasoning: "webhook fan-out benchmark",
      actor: "bench"
    })
    const publishMs = performance.now() - t1
    yield* snapshotOutbox(sql)
    if (slowRules.length > 0) yield* restoreOutbox(sql, "slow rules")
    const committedAt = Date.now()
    const deliveries = published.deliveries - (published.deliveries / rules) * slowRules.length

    // 4. The dispatcher, as a server process runs it, until the outbox is all delivered.
    const allDelivered = (started: number) =>
      waitForOutbox(sql, started, timeoutMs, (s) => s.pending === 0 && s.failed === 0)
    const cpuBefore = process.cpuUsage()
    const [dispatchMs, dispatchBudget] = yield* withCpuBudget(
      sql,
      receiver.pid,
      dispatchInProcess(app, options, allDelivered)
    )
    const cpu = process.cpuUsage(cpuBefore)
    const dispatchCpuMs = (cpu.user + cpu.system) / 1000
    const { outbox, reports } = yield* checkExactlyOnce(sql, [receiver])
    const signaturesVerified = verifySample(reports[0]!.samples, keyOf)
    const [latency] = yield* sql<{ readonly p50: number; readonly p99: number; readonly max: number }>`
      SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::float8 AS p50,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::float8 AS p99,
             max(ms)::float8 AS max
      FROM (
        SELECT extract(epoch FROM started_at)::float8 * 1000 + duration_ms - ${committedAt}::float8 AS ms
        FROM webhook_delivery_attempts
      ) t
    `

    // 5. The same bodies, plain undici, same receiver, as many in flight as the dispatcher's to one host.
    const bodies = outbox.map((r) => r.body)
    const bodyBytes = bodies.reduce((n, b) => n + Buffer.byteLength(b), 0)
    yield* Effect.promise(receiver.reset)
    const baselineCpuBefore = process.cpuUsage()
    const [baseline, baselineBudget] = yield* withCpuBudget(
      sql,
      receiver.pid,
      Effect.promise(() => plainPosts(webhookUrl, bodies, inFlightToOneHost))
    )
    const baselineCpu = process.cpuUsage(baselineCpuBefore)
    const baselineCpuMs = (baselineCpu.user + baselineCpu.system) / 1000
    const afterBaseline = yield* Effect.promise(receiver.report)
    if (afterBaseline.requests !== deliveries)
      return yield* Effect.die(
        new Error(`receiver saw ${afterBaseline.requests} plain POSTs of ${deliveries}`)
      )

    const receivers = slowReceiver === undefined ? [receiver] : [receiver, slowReceiver]
    const resetAll = Effect.promise(() => Promise.all(receivers.map((r) => r.reset())))

    // 6. Everything, slow receiver included: the fast deliveries timed alone.
    const slow =
      slowReceiver === undefined
        ? undefined
        : yield* Effect.andThen(
            resetAll,
            slowPhase(
              sql,
              app,
              options,
              receivers,
              deliveries,
              (ms) => (started) => waitForOutbox(sql, started, ms, (s) => s.fastPending === 0)
            )
          )

    // 7. One dispatcher process, then N, on the same outbox (the fast deliveries).
    const processes =
      (options.processes ?? 1) > 1
        ? {
            one: yield* processesPhase(url, sql, options, 1, receiver, allDelivered),
            many: yield* processesPhase(url, sql, options, options.processes!, receiver, allDelivered)
          }
        : undefined

    return {
      options,
      rules,
      events: published.deliveries / rules,
      deliveries,
      bodyBytes,
      createRulesMs,
      publishMs,
      dispatch: rate(deliveries, dispatchMs),
      dispatchCpuMs,
      dispatchBudget,
      latency: latency!,
      maxOpen: reports[0]!.maxOpen,
      baseline,
      baselineCpuMs,
      baselineBudget,
      deliveredOnce: outbox.length,
      signaturesVerified,
      slow,
      processes
    } satisfies FanoutResult
  })

/** The phase with the slow receiver: the whole outbox again, the fast deliveries timed on their own. */
const slowPhase = (
  sql: SqlClient.SqlClient,
  app: Context.Context<AlertRuleRepository | DeliveryOutbox>,
  options: FanoutOptions,
  receivers: ReadonlyArray<ReceiverProcess>,
  fast: number,
  fastDone: (timeoutMs: number) => (started: number) => Effect.Effect<number>
) =>
  Effect.gen(function* () {
    const timeoutMs = options.timeoutMs ?? 600_000
    yield* restoreOutbox(sql, "none")
    const [{ total }] = (yield* sql<{
      readonly total: number
    }>`SELECT count(*)::int AS total FROM webhook_deliveries`) as [{ readonly total: number }]
    let fastMs = 0
    const allMs = yield* dispatchInProcess(app, options, (started) =>
      Effect.gen(function* () {
        fastMs = yield* fastDone(timeoutMs)(started)
        return yield* waitForOutbox(sql, started, timeoutMs, (s) => s.pending === 0 && s.failed === 0)
      })
    )
    const { reports } = yield* checkExactlyOnce(sql, receivers)
    return {
      slowDeliveries: total - fast,
      fastWithSlow: rate(fast, fastMs),
      all: rate(total, allMs),
      fastMaxOpen: reports[0]!.maxOpen,
      slowMaxOpen: reports[1]!.maxOpen
    } satisfies SlowResult
  })

/** The fast deliveries sent by `processes` dispatcher processes on one database, timed from their start. */
const processesPhase = (
  url: string,
  sql: SqlClient.SqlClient,
  options: FanoutOptions,
  processes: number,
  receiver: ReceiverProcess,
  done: (started: number) => Effect.Effect<number>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      yield* restoreOutbox(sql, "slow rules")
      yield* Effect.promise(receiver.reset)
      const start = yield* startDispatcherProcesses(url, processes, options, serverKeyBase64)
      const started = performance.now()
      yield* start
      const ms = yield* done(started)
      const { outbox } = yield* checkExactlyOnce(sql, [receiver])
      return rate(outbox.length, ms)
    })
  )

// --------------------------------------------------------------------- main

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL")

/** The CPU the targets together would allow a delivery on this machine, beside what one costs. */
const reportCeiling = (r: FanoutResult) => {
  const line = (label: string, rest: string) => console.log(`  ${label.padEnd(40)}${rest}`)
  const us = (ms: number) => (1000 * ms) / r.deliveries
  const c = ceiling({
    cores: availableParallelism(),
    deliveries: r.deliveries,
    dispatcherUs: us(r.dispatchCpuMs),
    postgresUs: us(r.dispatchBudget.postgresMs),
    receiverUs: us(r.dispatchBudget.receiverMs),
    baselinePerSecond: r.baseline.perSecond,
    plainUs: (1000 * (r.baselineCpuMs + r.baselineBudget.receiverMs)) / r.baseline.requests,
    ratio: 0.5,
    p99Ms: 2_000,
    processesGain: 1.6
  })
  line(
    `CPU ceiling on ${availableParallelism()} cores`,
    `${fmt(c.costUs)} us a delivery (all processes): at most ${fmt(c.ceilingPerSecond)} deliveries/s, any processes`
  )
  line(
    "  the targets together need",
    `${fmt(c.oneProcessPerSecond)}/s from 1 process, ${fmt(c.manyPerSecond)}/s from more: ` +
      `<= ${fmt(c.allowedUs)} us a delivery, ${fmt(c.leftUs)} us beyond a plain POST's`
  )
}

const report = (r: FanoutResult) => {
  const line = (label: string, rest: string) => console.log(`  ${label.padEnd(40)}${rest}`)
  const timed = (x: Rate, unit: string) =>
    `${fmt(x.ms / 1000, 2).padStart(8)} s  ${fmt(x.perSecond).padStart(8)} ${unit}`
  const ratio = r.dispatch.perSecond / r.baseline.perSecond
  const perDelivery = (ms: number, unit: string) =>
    `${fmt(ms / 1000, 2).padStart(8)} s  ${fmt((1000 * ms) / r.deliveries).padStart(8)} us ${unit}`
  const budget = (b: CpuBudget, unit: string) => {
    line("  Postgres backends' CPU meanwhile", perDelivery(b.postgresMs, unit))
    line("  receiver's CPU meanwhile", perDelivery(b.receiverMs, unit))
  }
  console.log(
    `webhook fan-out: ${fmt(r.rules)} rules x ${r.events} events; main phase ${fmt(r.deliveries)} deliveries, ` +
      `${fmt(r.bodyBytes / r.deliveries)} bytes of body on average`
  )
  line("create rules (setup, not compared)", `${fmt(r.createRulesMs / 1000, 2).padStart(8)} s`)
  line("publish + enqueue (one transaction)", `${fmt(r.publishMs / 1000, 2).padStart(8)} s`)
  line("dispatcher", timed(r.dispatch, "deliveries/s"))
  line(
    "  its process's CPU meanwhile",
    `${fmt(r.dispatchCpuMs / 1000, 2).padStart(8)} s  ${fmt((1000 * r.dispatchCpuMs) / r.deliveries).padStart(8)} us a delivery`
  )
  budget(r.dispatchBudget, "a delivery")
  line("plain undici POSTs (baseline)", timed(r.baseline, "requests/s"))
  line(
    "  its CPU",
    `${fmt(r.baselineCpuMs / 1000, 2).padStart(8)} s  ${fmt((1000 * r.baselineCpuMs) / r.deliveries).padStart(8)} us a request`
  )
  budget(r.baselineBudget, "a request")
  line("ratio dispatcher/baseline", `${ratio.toFixed(3)}  (target >= 0.5: ${verdict(ratio >= 0.5)})`)
  line(
    "enqueue-to-delivered latency",
    `p50 ${fmt(r.latency.p50)} ms, p99 ${fmt(r.latency.p99)} ms, max ${fmt(r.latency.max)} ms  ` +
      `(p99 < 2 s: ${verdict(r.latency.p99 < 2_000)})`
  )
  line("most requests open at the receiver", `${r.maxOpen} (host bound ${r.options.hostConcurrency})`)
  reportCeiling(r)
  if (r.slow !== undefined) {
    const s = r.slow
    const kept = s.fastWithSlow.perSecond / r.dispatch.perSecond
    console.log(
      `  with ${fmt(s.slowDeliveries)} deliveries to a receiver answering in ${r.options.slowMs ?? 500} ms:`
    )
    line("  fast deliveries, slow ones beside", timed(s.fastWithSlow, "deliveries/s"))
    line("  every delivery, slow ones included", timed(s.all, "deliveries/s"))
    line(
      "  fast rate with / without slow ones",
      `${kept.toFixed(3)}  (target >= 0.8: ${verdict(kept >= 0.8)})`
    )
    line(
      "  most requests open at once",
      `fast receiver ${s.fastMaxOpen}, slow receiver ${s.slowMaxOpen} (host bound ${r.options.hostConcurrency}: ` +
        `${verdict(s.fastMaxOpen <= r.options.hostConcurrency && s.slowMaxOpen <= r.options.hostConcurrency)})`
    )
  }
  if (r.processes !== undefined) {
    const { one, many } = r.processes
    const gain = many.perSecond / one.perSecond
    line("1 dispatcher process", timed(one, "deliveries/s"))
    line(`${r.options.processes} dispatcher processes`, timed(many, "deliveries/s"))
    line(
      `ratio ${r.options.processes} processes / 1`,
      `${gain.toFixed(3)}  (target >= 1.6: ${verdict(gain >= 1.6)})`
    )
  }
  console.log(
    `  checked: every delivery of every phase received exactly once with one delivered attempt, ` +
      `${fmt(r.signaturesVerified)} sampled signatures verified (node:crypto and standardwebhooks)`
  )
}

const main = async () => {
  const { values } = parseArgs({
    options: {
      rules: { type: "string", default: process.env.RULES ?? "10000" },
      concurrency: { type: "string", default: process.env.CONCURRENCY ?? String(DefaultConcurrency) },
      "host-concurrency": {
        type: "string",
        default: process.env.HOST_CONCURRENCY ?? String(DefaultHostConcurrency)
      },
      processes: { type: "string", default: process.env.PROCESSES ?? "1" },
      slow: { type: "boolean", default: process.env.SLOW === "1" },
      seed: { type: "string", default: process.env.SEED ?? "1" },
      sample: { type: "string", default: process.env.SAMPLE ?? "100" }
    }
  })
  const options: FanoutOptions = {
    rules: Number(values.rules),
    concurrency: Number(values.concurrency),
    hostConcurrency: Number(values["host-concurrency"]),
    processes: Number(values.processes),
    slow: values.slow,
    seed: values.seed,
    sample: Number(values.sample)
  }
  for (const [name, value] of [
    ["rules", options.rules],
    ["concurrency", options.concurrency],
    ["host-concurrency", options.hostConcurrency],
    ["processes", options.processes],
    ["sample", options.sample]
  ] as const) {
    if (!Number.isInteger(value) || value! < 1) {
      console.error(`--${name} must be a whole number >= 1, got ${values[name]}`)
      // Nothing is started yet, so there is nothing to clean up.
      process.exit(2)
    }
  }
  if (options.slow && options.rules < 10) {
    console.error(`--slow needs at least 10 rules (every tenth is slow), got ${options.rules}`)
    process.exit(2)
  }

  await withPostgresServer(async (serverUrl) => {
    console.log(machineLine(await postgresVersion(serverUrl)))
    console.log(
      `settings: rules ${fmt(options.rules)}, concurrency ${options.concurrency}, host concurrency ` +
        `${options.hostConcurrency}, processes ${options.processes}, slow receiver ${options.slow ? "yes" : "no"}, ` +
        `seed ${options.seed}, signatures verified on every ${options.sample}th request`
    )
    const r = await withScratchDatabase(serverUrl, "bench_webhooks", process.env.KEEP === "1", (db) =>
      Effect.runPromise(Effect.scoped(runFanout(db.url, options)))
    )
    report(r)
  })
}

if (import.meta.main) runMain(main)
