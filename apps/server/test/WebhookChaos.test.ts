/**
 * Webhook chaos (issue 7, "Webhook chaos"; spec part 3 "Webhook delivery";
 * part 6 "Retry and idempotency"): a receiver that fails 30% of requests
 * (500), hangs 10% (never answers: the sender gives up at its 10 s receiver
 * timeout), resets 10% (destroys the connection) and answers 200 otherwise,
 * while the only server process is killed with SIGKILL twice and restarted
 * each time. Real processes only: `ratings import` and `ratings publish`,
 * rules in Postgres, `ratings serve` delivering over https.
 *
 * Settings only tests use (both honoured only under NODE_ENV=test):
 * RATINGS_WEBHOOK_RETRY_SCALE=0.0001 runs the whole 12-hour schedule in
 * 4.3 s, and RATINGS_WEBHOOK_LEASE=35 seconds shortens the wait for the
 * claims of a killed process (60 s in production). The 10 s receiver timeout
 * is not configurable: it is a promise to receivers, so every hang costs
 * 10 s, and the deliveries run concurrently. Most of the run is the two
 * leases of the killed processes' claims.
 *
 * Besides the chaos rules, a few "doomed" rules point at a path that never
 * answers 2xx (fail, hang or reset), so that "failed after exactly five
 * retries" is always exercised, not left to a 1-in-64 chance.
 *
 * At the end (nothing pending) every delivery is delivered, or failed after
 * the initial attempt and exactly five retries; the attempts start at the
 * scaled offsets from the initial attempt, never earlier, and no later than
 * the tolerance below; every recorded attempt is one request the receiver
 * saw, with the outcome it was given; every request not recorded was made
 * by a process that was then killed (in flight, or answered before it could
 * record the outcome: a 2xx lost that way is sent again, as the spec allows);
 * no delivery_id ever has two requests in flight; and no delivery enqueued is
 * lost.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { retryPolicy } from "@ratings/domain/webhooks/RetrySchedule"
import { Effect } from "effect"
import pg from "pg"
import { runCli, scratchDatabase } from "./CliHarness.ts"
import {
  type ChaosKind,
  type ChaosReceiver,
  type ChaosRequest,
  seededRandom,
  startChaosReceiver,
  wallClock
} from "./MultiProcessHarness.ts"
import {
  type AttemptRow,
  createRules,
  ended,
  readOutbox,
  type Server,
  settled,
  TestRetryScale,
  waitForOutbox,
  type WebhookWorld,
  webhookWorld
} from "./WebhookHarness.ts"

const ScaledOffsets = retryPolicy({ scale: TestRetryScale }).offsetsMs
const LeaseMs = 35_000
const ChaosRules = 20
const DoomedRules = 4
/** A publish of lendwell's draft emits rating.changed and rating.grade_transition to a rule without filters. */
const EventsPerRule = 2
/**
 * How late an attempt may start after it became possible (due, its previous
 * attempt over, a live process): the dispatcher's poll (100 ms here), a claim
 * and a record round trip, on a two-core machine shared with other suites.
 * A kill adds the lease of the dead process's claims and the restart to it.
 */
const SlackMs = 3_000
/** How far apart the server's attempt time and the receiver's arrival time may be for one request. */
const MatchMs = 3_000
/**
 * How long after its successor was spawned a request of a killed process may
 * still be seen arriving (it was sent before the kill; the receiver shares
 * this process's event loop). A new process needs seconds to boot.
 */
const InTransitMs = 500

const seed = Number(process.env.RATINGS_CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31))
const random = seededRandom(seed)

/** 30% fail, 10% hang, 10% reset, 50% ok; a doomed rule's requests only fail, hang or reset. */
const decide = ({ path }: { readonly path: string }): ChaosKind => {
  const r = random()
  if (path.startsWith("/doomed/")) return r < 0.6 ? "fail" : r < 0.8 ? "hang" : "reset"
  return r < 0.3 ? "fail" : r < 0.4 ? "hang" : r < 0.5 ? "reset" : "ok"
}

/** The outcome the outbox must record for a request given each answer. */
const OutcomeOf: Record<ChaosKind, string> = {
  ok: "delivered",
  fail: "http_error",
  hang: "timeout",
  reset: "network_error"
}

interface Kill {
  readonly at: number
  /** When its successor was spawned, after it had exited: no later request can be the dead one's. */
  readonly spawnedAt: number
  /** When the restarted process listened. */
  readonly relistenedAt: number
  /** The requests open when the process was killed. */
  readonly inFlight: ReadonlyArray<ChaosRequest>
}

let world: WebhookWorld

beforeAll(() => {
  world = webhookWorld()
})

afterAll(() => world.dispose(), 60_000)

/** Polls until `done` holds; after `timeoutMs` fails, or with `orGoOn` returns false. */
const waitFor = async (what: string, done: () => boolean, timeoutMs: number, orGoOn = false) => {
  const deadline = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadline) {
      if (orGoOn) return false
      throw new Error(`not within ${timeoutMs} ms: ${what}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return true
}

/**
 * The latest an attempt that became possible at `readyAt` may start: the
 * slack after it, or, when a process died in between, after the dead
 * process's claims expired and its successor listened.
 */
const latestStart = (readyAt: number, start: number, kills: ReadonlyArray<Kill>): number => {
  let bound = readyAt
  for (const kill of kills) {
    if (kill.relistenedAt >= readyAt - SlackMs && kill.at <= start) {
      bound = Math.max(bound, kill.at + LeaseMs, kill.relistenedAt)
    }
  }
  return bound + SlackMs
}

describe("webhook chaos", () => {
  it("a receiver that fails 30%, hangs 10% and resets 10%, and the server SIGKILLed twice: every delivery ends delivered or failed after exactly five retries at the scaled offsets, every attempt is a request the receiver saw, and none is lost", async () => {
    const began = performance.now()
    const { databaseUrl, env } = await world.setup({
      RATINGS_WEBHOOK_LEASE: `${LeaseMs / 1_000} seconds`,
      // More slots than deliveries: a due attempt never waits for a slot, so its start measures the schedule.
      RATINGS_WEBHOOK_CONCURRENCY: "64",
      RATINGS_WEBHOOK_POLL_INTERVAL: "100 millis"
    })
    const receiver: ChaosReceiver = await startChaosReceiver(world.tls, decide)
    try {
      const rules = await createRules(databaseUrl, world.serverKey, [
        ...Array.from({ length: ChaosRules }, (_, i) => ({
          webhookUrl: receiver.url(`/chaos/${i}`),
          slugs: ["lendwell"]
        })),
        ...Array.from({ length: DoomedRules }, (_, i) => ({
          webhookUrl: receiver.url(`/doomed/${i}`),
          slugs: ["lendwell"]
        }))
      ])
      const queued = await world.publishLendwell(env)
      assert.strictEqual(queued, rules.length * EventsPerRule, "one delivery per rule and event")
      const enqueued = (await readOutbox(databaseUrl)).deliveries
      const enqueuedIds = enqueued.map((d) => d.delivery_id).sort()

      const secondsSince = (t: number) => ((wallClock() - t) / 1_000).toFixed(1)
      const setUpIn = secondsSince(performance.timeOrigin + began)
      const servers: Array<Server> = []
      const kills: Array<Kill> = []
      servers.push(await world.startServer(env))
      const firstListenedAt = wallClock()

      /** SIGKILLs the live process once `ready` holds (or, unless `required`, after a minute), and starts the next. */
      const killAndRestart = async (ready: () => boolean, what: string, required: boolean) => {
        await waitFor(what, ready, 60_000, !required)
        const victim = servers.at(-1)!
        // Nothing runs between the snapshot and the signal: these are the sends the process dies in.
        const inFlight = receiver.openRequests()
        const at = wallClock()
        victim.child.kill("SIGKILL")
        await ended(victim.child)
        const spawnedAt = wallClock()
        servers.push(await world.startServer(env))
        kills.push({ at, spawnedAt, relistenedAt: wallClock(), inFlight })
      }

      // First kill: the first process is well into the schedule (which takes 4.3 s) and has
      // sends in flight (a hang holds one open for 10 s; some hang within the first 2.5 s).
      await killAndRestart(
        () =>
          receiver.requests.length > 0 &&
          wallClock() - receiver.requests[0]!.start > 2_500 &&
          receiver.openRequests().length > 0,
        "the first process 2.5 s into its sends, with sends in flight",
        true
      )
      // Second kill: as soon as the restarted process has a send of its own in flight. Its quick
      // sends are open for a millisecond, so this waits for a hang, almost always within the
      // minute; if none comes, the process is killed anyway.
      const firstRestart = kills[0]!.relistenedAt
      await killAndRestart(
        () => receiver.openRequests().some((r) => r.start > firstRestart),
        "a send of the restarted process in flight",
        false
      )

      const state = await waitForOutbox(databaseUrl, settled, 180_000)
      const phases =
        `set up ${setUpIn} s, kills at +${kills.map((k) => ((k.at - firstListenedAt) / 1_000).toFixed(1)).join(" s and +")} s, ` +
        `settled at +${secondsSince(firstListenedAt)} s`
      await waitFor("the receiver's connections closed", () => receiver.openRequests().length === 0, 15_000)
      const { createdAt, attemptsOf } = await readTimes(databaseUrl)

      // ------------------------------------------------------------ none lost
      assert.deepStrictEqual(
        state.deliveries.map((d) => d.delivery_id).sort(),
        enqueuedIds,
        "every enqueued delivery_id is accounted for, and no other"
      )
      assert.strictEqual(state.deliveries.length, rules.length * EventsPerRule)
      for (const rule of rules) {
        assert.deepStrictEqual(
          state.deliveries
            .filter((d) => d.rule_id === rule.id)
            .map((d) => d.event)
            .sort(),
          ["rating.changed", "rating.grade_transition"],
          `the deliveries of rule ${rule.webhookUrl}`
        )
      }

      // ---------------------------------------------- outcomes and schedule
      const doomed = new Set(rules.filter((r) => r.webhookUrl.includes("/doomed/")).map((r) => r.id))
      const received = receiver.byDelivery()
      const unrecorded: Array<ChaosRequest> = []
      let attemptsRecorded = 0
      for (const d of state.deliveries) {
        const label = `delivery ${d.delivery_id} (${d.event}, rule ${doomed.has(d.rule_id) ? "doomed" : "chaos"})`
        const attempts = attemptsOf.get(d.delivery_id) ?? []
        attemptsRecorded += attempts.length
        assert.notStrictEqual(d.status, "pending", label)
        assert.isTrue(
          attempts.every((a) => a.cycle === 0),
          `${label}: one cycle, no re-fire`
        )
        assert.deepStrictEqual(
          attempts.map((a) => a.attempt),
          Array.from({ length: d.attempts }, (_, i) => i),
          `${label}: attempts numbered 0..n-1, each once`
        )
        const outcomes = attempts.map((a) => a.outcome)
        if (d.status === "delivered") {
          assert.isFalse(doomed.has(d.rule_id), `${label}: a doomed receiver never answers 2xx`)
          assert.isAtMost(attempts.length, 6, label)
          assert.strictEqual(outcomes.at(-1), "delivered", label)
          assert.notInclude(outcomes.slice(0, -1), "delivered", `${label}: delivered once`)
        } else {
          assert.strictEqual(d.status, "failed", label)
          assert.strictEqual(attempts.length, 6, `${label}: the initial attempt and exactly five retries`)
          assert.notInclude(outcomes, "delivered", label)
          assert.isNotNull(d.last_error, label)
        }

        // Each attempt starts at its scaled offset from the initial attempt: never earlier, and no
        // later than the slack after it became possible (plus lease and restart across a kill).
        const t0 = attempts[0]!.started_at.getTime()
        for (const [k, a] of attempts.entries()) {
          const start = a.started_at.getTime()
          const previous = attempts[k - 1]
          const due = k === 0 ? createdAt.get(d.delivery_id)! : t0 + ScaledOffsets[k - 1]!
          const readyAt =
            previous === undefined
              ? Math.max(due, firstListenedAt)
              : Math.max(due, previous.started_at.getTime() + previous.duration_ms)
          assert.isAtLeast(start, due, `${label}: attempt ${k} not before its offset`)
          if (previous !== undefined) {
            assert.isAtLeast(
              start,
              previous.started_at.getTime() + previous.duration_ms - 2,
              `${label}: attempt ${k} after attempt ${k - 1} ended`
            )
          }
          assert.isAtMost(
            start,
            latestStart(readyAt, start, kills),
            `${label}: attempt ${k} on time\n${timeline(received.get(d.delivery_id) ?? [], attempts, kills)}`
          )
        }

        // Every recorded attempt is one request the receiver saw, with the outcome it was given;
        // every other request of the delivery was made by a process that was then killed.
        const requests = [...(received.get(d.delivery_id) ?? [])].sort((a, b) => a.start - b.start)
        const story = () => timeline(requests, attempts, kills)
        let next = 0
        for (const request of requests) {
          const attempt = attempts[next]
          if (
            attempt !== undefined &&
            attempt.outcome === OutcomeOf[request.kind] &&
            Math.abs(request.start - attempt.started_at.getTime()) <= MatchMs
          ) {
            if (request.kind === "fail") assert.strictEqual(attempt.status_code, 500, label)
            if (request.kind === "ok") assert.strictEqual(attempt.status_code, 200, label)
            next++
          } else {
            // A killed process may lose the outcome of any send it had not recorded yet. A request
            // reaches the receiver a little after it was sent, but not after the next process exists.
            unrecorded.push(request)
            assert.isTrue(
              kills.some((kill) => request.start <= kill.spawnedAt + InTransitMs),
              `${label}: a ${request.kind} request at ${iso(request.start)} that no attempt records was not cut off by a kill\n${story()}`
            )
          }
        }
        assert.strictEqual(
          next,
          attempts.length,
          `${label}: every recorded attempt was a request the receiver saw\n${story()}`
        )

        for (let i = 1; i < requests.length; i++) {
          assert.isAtMost(
            requests[i - 1]!.end!,
            requests[i]!.start,
            `${label}: two requests in flight at once`
          )
        }
      }

      // The kills cut sends off: those are never recorded.
      assert.strictEqual(kills.length, 2)
      assert.isAbove(kills[0]!.inFlight.length, 0, "the first kill cut sends off")
      const cutOff = new Set(kills.flatMap((k) => k.inFlight))
      for (const request of cutOff)
        assert.include(unrecorded, request, "a send cut off by a kill is not recorded")

      const delivered = state.deliveries.filter((d) => d.status === "delivered")
      const failed = state.deliveries.filter((d) => d.status === "failed")
      assert.isAbove(delivered.length, 0)
      assert.isAtLeast(failed.length, DoomedRules * EventsPerRule, "every doomed delivery failed")
      const byKind = (kind: ChaosKind) => receiver.requests.filter((r) => r.kind === kind).length
      const duplicates = delivered.filter(
        (d) => (received.get(d.delivery_id) ?? []).filter((r) => r.kind === "ok").length > 1
      ).length
      console.log(
        `webhook chaos (seed ${seed}, RATINGS_CHAOS_SEED to repeat the answers): ` +
          `${state.deliveries.length} deliveries (${rules.length} rules x ${EventsPerRule} events): ` +
          `${delivered.length} delivered, ${failed.length} failed; ${attemptsRecorded} attempts recorded; ` +
          `${receiver.requests.length} requests (${byKind("ok")} ok, ${byKind("fail")} 500, ${byKind("hang")} hung, ` +
          `${byKind("reset")} reset), not recorded: ${cutOff.size} cut off by a kill and ` +
          `${unrecorded.length - cutOff.size} answered to a process killed before it recorded them; ` +
          `${kills.length} kills (sends in flight: ${kills.map((k) => k.inFlight.length).join(", ")}); ` +
          `${duplicates} delivered more than once (a 2xx lost with a killed process); ` +
          `${phases}`
      )

      for (const server of servers) {
        for (const rule of rules) assert.notInclude(server.output(), rule.key, "no signing key in the logs")
        assert.notInclude(server.output(), world.serverKey, "no server key in the logs")
      }
    } finally {
      await receiver.close()
    }
  }, 400_000)
})

const iso = (ms: number) => new Date(ms).toISOString()

/** One delivery's requests, attempts and the kills, in time order: what a failed assertion prints. */
const timeline = (
  requests: ReadonlyArray<ChaosRequest>,
  attempts: ReadonlyArray<TimedAttempt>,
  kills: ReadonlyArray<Kill>
): string =>
  [
    ...requests.map((r) => ({
      at: r.start,
      line: `request ${r.nth} ${r.kind} until ${r.end === undefined ? "open" : iso(r.end)} -> ${r.outcome}`
    })),
    ...attempts.map((a) => ({
      at: a.started_at.getTime(),
      line: `attempt ${a.attempt} ${a.outcome} ${a.status_code ?? ""} ${a.duration_ms} ms ${a.error ?? ""}`
    })),
    ...kills.flatMap((k, i) => [
      { at: k.at, line: `kill ${i + 1}` },
      { at: k.relistenedAt, line: `restart ${i + 1} listening` }
    ])
  ]
    .sort((a, b) => a.at - b.at)
    .map((e) => `  ${iso(e.at)} ${e.line}`)
    .join("\n")

interface TimedAttempt extends AttemptRow {
  readonly duration_ms: number
}

/**
 * When each delivery was enqueued (its initial attempt is due from then), and
 * every attempt with how long it took, in order.
 */
const readTimes = async (databaseUrl: string) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const created = await client.query<{ delivery_id: string; created_at: Date }>(
      "SELECT delivery_id, created_at FROM webhook_deliveries"
    )
    const attempts = await client.query<TimedAttempt>(
      `SELECT delivery_id, cycle, attempt, started_at, status_code, outcome, error, duration_ms
       FROM webhook_delivery_attempts ORDER BY delivery_id, cycle, attempt`
    )
    const attemptsOf = new Map<string, Array<TimedAttempt>>()
    for (const a of attempts.rows)
      attemptsOf.set(a.delivery_id, [...(attemptsOf.get(a.delivery_id) ?? []), a])
    return {
      createdAt: new Map(created.rows.map((row) => [row.delivery_id, row.created_at.getTime()])),
      attemptsOf
    }
  } finally {
    await client.end()
  }
}

describe("the claim lease setting", () => {
  const serveWith = async (settings: Record<string, string>) => {
    const db = await scratchDatabase()
    const port = await Effect.runPromise(freePort)
    const r = await runCli(["serve"], {
      DATABASE_URL: db.url,
      PORT: String(port),
      RATINGS_SECRET_KEY: world.serverKey,
      ...settings
    }).finally(db.drop)
    return { code: r.code, output: r.stdout + r.stderr }
  }

  it("RATINGS_WEBHOOK_LEASE is a setting only tests use: outside NODE_ENV=test the server refuses to start and says why", async () => {
    const { code, output } = await serveWith({ NODE_ENV: "production", RATINGS_WEBHOOK_LEASE: "35 seconds" })
    assert.strictEqual(code, 1)
    assert.include(output, "RATINGS_WEBHOOK_LEASE is a setting only tests use")
    assert.include(output, 'honoured only when NODE_ENV=test (NODE_ENV is "production")')
    assert.notInclude(output, "Listening on")
  }, 60_000)

  it("a lease no longer than twice the receiver timeout plus the transport grace (30 s) is refused with the setting's name", async () => {
    const { code, output } = await serveWith({ NODE_ENV: "test", RATINGS_WEBHOOK_LEASE: "30 seconds" })
    assert.strictEqual(code, 1)
    assert.include(output, "RATINGS_WEBHOOK_LEASE")
    assert.include(output, "must be longer than 30 seconds")
    assert.notInclude(output, "Listening on")
  }, 60_000)
})
