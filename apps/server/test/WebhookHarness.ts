/**
 * What the webhook tests of the server process share: the dataset (the
 * documented import example with a draft re-rating of `lendwell` left for
 * `ratings publish`), alert rules stored straight through the Postgres
 * repository under the server key the child processes use, a real receiver
 * on 127.0.0.1 that records every request it gets (raw bytes, headers, and
 * when it started and ended), and reads of the outbox tables.
 *
 * Receivers speak https with a certificate made for the run: a server
 * outside NODE_ENV=development only calls https URLs, and the child
 * processes trust the certificate through NODE_EXTRA_CA_CERTS, as an
 * operator would add a private CA.
 */
import { type ChildProcess, execFileSync } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import type { IncomingHttpHeaders, ServerResponse } from "node:http"
import { createServer as createHttpsServer } from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import * as PgAlertRuleRepository from "@ratings/adapters-sql/PgAlertRuleRepository"
import * as PgDatabase from "@ratings/adapters-sql/PgDatabase"
import { SecretBox } from "@ratings/adapters-sql/SecretBox"
import type { EntityType } from "@ratings/domain/model/EntityType"
import type { AlertEventKind } from "@ratings/domain/model/WebhookEvent"
import { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import { signingKeyFromBytes } from "@ratings/domain/webhooks/WebhookSignature"
import { Effect, Layer, Redacted } from "effect"
import pg from "pg"
import { runCli, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"
import { ethereumAndSnapshot } from "./ServedWorld.ts"

// ----------------------------------------------------------------- dataset

const docPath = join(import.meta.dirname, "..", "..", "..", "docs", "import-format.md")

/**
 * The documented import example, with the ethereum chain and a sample quantum
 * snapshot, plus a third version of lendwell left as a draft, every answer
 * scored 1: publishing it moves the composite and the grade down, so it emits
 * `rating.changed` and `rating.grade_transition`.
 */
// biome-ignore lint/suspicious/noExplicitAny: the import document is edited as plain JSON
export const exampleWithDraft = (): any => {
  const data = JSON.parse(
    /<!-- import-example:begin -->\s*```json\n([\s\S]*?)```/.exec(readFileSync(docPath, "utf8"))![1]!
  )
  data.entities.unshift(structuredClone(ethereumAndSnapshot.chain))
  data.quantum_snapshot = structuredClone(ethereumAndSnapshot.snapshot)
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

/** A server key (RATINGS_SECRET_KEY) for the test and its child processes alike. */
export const newServerKey = (): string => randomBytes(32).toString("base64")

// ------------------------------------------------------------------- rules

export interface RuleSpec {
  readonly webhookUrl: string
  readonly entityTypes?: ReadonlyArray<EntityType>
  readonly slugs?: ReadonlyArray<string>
  readonly events?: ReadonlyArray<AlertEventKind>
  readonly accountId?: string
}

export interface StoredRule {
  readonly id: string
  /** The signing key as handed out (`whsec_...`). */
  readonly key: string
  readonly webhookUrl: string
}

/**
 * Stores rules through PgAlertRuleRepository, keys sealed under `serverKey`
 * as the server process seals them (so its dispatcher can open them). The
 * database is migrated first if it is not yet.
 */
export const createRules = (
  databaseUrl: string,
  serverKey: string,
  specs: ReadonlyArray<RuleSpec>
): Promise<ReadonlyArray<StoredRule>> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const rules = yield* AlertRuleRepository
      const created: Array<StoredRule> = []
      for (const spec of specs) {
        const id = randomUUID()
        const key = signingKeyFromBytes(new Uint8Array(randomBytes(32)))
        yield* rules.create({
          id,
          account_id: spec.accountId ?? "webhook-test-account",
          name: null,
          entity_types: spec.entityTypes ?? [],
          slugs: spec.slugs ?? [],
          events: spec.events ?? [],
          channels: { webhook_url: spec.webhookUrl },
          created_at: new Date().toISOString(),
          signing_key: key
        })
        created.push({ id, key, webhookUrl: spec.webhookUrl })
      }
      return created
    }).pipe(
      Effect.provide(
        PgAlertRuleRepository.layer.pipe(
          Layer.provide(SecretBox.layer(Redacted.make(serverKey))),
          Layer.provide(PgDatabase.layer({ url: databaseUrl, maxConnections: 2 }))
        )
      )
    )
  )

// ---------------------------------------------------------------- receiver

export interface Certificate {
  readonly key: string
  readonly cert: string
  /** The certificate's file, for NODE_EXTRA_CA_CERTS. */
  readonly certFile: string
}

/** A self-signed certificate for 127.0.0.1, valid for a day. */
export const loopbackCertificate = (): Certificate => {
  const dir = mkdtempSync(join(tmpdir(), "ratings-receiver-tls-"))
  const keyFile = join(dir, "key.pem")
  const certFile = join(dir, "cert.pem")
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"],
      ...["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
      ...["-keyout", keyFile, "-out", certFile]
    ],
    { stdio: "ignore" }
  )
  return { key: readFileSync(keyFile, "utf8"), cert: readFileSync(certFile, "utf8"), certFile }
}

/** How the receiver answers one request: a status, or hold it open without answering. */
export type Answer = number | "hold"

export interface ReceivedRequest {
  /** The `webhook-id` header: the delivery_id. */
  readonly deliveryId: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** The body exactly as received (empty until it has all arrived). */
  raw: Buffer
  /** 0 for the first request of this delivery_id, 1 for the second ... */
  readonly nth: number
  /** performance.now() when the request arrived. */
  readonly start: number
  /** performance.now() when the answer was sent or the connection closed, while open undefined. */
  end: number | undefined
  /** The status sent, or "aborted" when the sender went away first; undefined while open. */
  outcome: number | "aborted" | undefined
}

export interface Receiver {
  readonly url: (path: string) => string
  readonly requests: Array<ReceivedRequest>
  /** Decides each answer; may be replaced while the receiver runs. */
  answer: (request: ReceivedRequest) => Answer | Promise<Answer>
  readonly byDelivery: () => Map<string, Array<ReceivedRequest>>
  /** Requests open right now. */
  readonly open: () => number
  /** The most requests that were open at one time. */
  readonly maxOpen: () => number
  readonly close: () => Promise<void>
}

export const startReceiver = async (tls: Certificate, answer: Receiver["answer"]): Promise<Receiver> => {
  const requests: Array<ReceivedRequest> = []
  const seen = new Map<string, number>()
  let open = 0
  let maxOpen = 0
  const server = createHttpsServer({ key: tls.key, cert: tls.cert }, (req, res: ServerResponse) => {
    const deliveryId = String(req.headers["webhook-id"] ?? "")
    const nth = seen.get(deliveryId) ?? 0
    seen.set(deliveryId, nth + 1)
    open++
    maxOpen = Math.max(maxOpen, open)
    const record: ReceivedRequest = {
      deliveryId,
      path: req.url ?? "",
      headers: req.headers,
      raw: Buffer.alloc(0),
      nth,
      start: performance.now(),
      end: undefined,
      outcome: undefined
    }
    requests.push(record)
    const settle = (outcome: number | "aborted") => {
      if (record.outcome !== undefined) return
      record.end = performance.now()
      record.outcome = outcome
      open--
    }
    res.on("finish", () => settle(res.statusCode))
    res.on("close", () => settle(res.writableFinished ? res.statusCode : "aborted"))
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", async () => {
      record.raw = Buffer.concat(chunks)
      const decided = await receiver.answer(record)
      if (decided === "hold" || res.destroyed) return
      // The request stops counting as open when the answer is written, not at
      // "finish": the sender cannot go on before it has the answer, while
      // "finish" can come late when this (test) process is busy, and would
      // count the sender's next request as overlapping this one.
      settle(decided)
      res.writeHead(decided, { "content-type": "text/plain" }).end("ok")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  const receiver: Receiver = {
    url: (path) => `https://127.0.0.1:${port}${path}`,
    requests,
    answer,
    byDelivery: () => {
      const by = new Map<string, Array<ReceivedRequest>>()
      for (const r of requests) by.set(r.deliveryId, [...(by.get(r.deliveryId) ?? []), r])
      return by
    },
    open: () => open,
    maxOpen: () => maxOpen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return receiver
}

// --------------------------------------------------------------- processes

/** Resolves when the child has exited, by a code or by a signal (SIGKILL leaves no exit code). */
export const ended = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once("exit", () => resolve())
  })

export interface Server {
  readonly child: ChildProcess
  readonly port: number
  /** Everything it printed so far, stdout and stderr. */
  readonly output: () => string
}

/**
 * A test's processes and resources: one certificate and one server key for
 * all of them, and everything started is stopped and dropped by `dispose`.
 */
export interface WebhookWorld {
  readonly tls: Certificate
  readonly serverKey: string
  /** A fresh database with the example imported (lendwell's draft waiting), and the env of its processes. */
  readonly setup: (
    extraEnv?: Record<string, string>
  ) => Promise<{ readonly databaseUrl: string; readonly env: Record<string, string> }>
  /** `ratings publish protocol lendwell`; the number of deliveries it queued. */
  readonly publishLendwell: (env: Record<string, string>) => Promise<number>
  /** `ratings serve` on a free port, once it listens. */
  readonly startServer: (env: Record<string, string>) => Promise<Server>
  readonly receiver: (answer: Receiver["answer"]) => Promise<Receiver>
  readonly dispose: () => Promise<void>
}

/** The retry scale of the server processes: the whole schedule (12 h) in about 4.3 s. */
export const TestRetryScale = 0.0001

export const webhookWorld = (): WebhookWorld => {
  const tls = loopbackCertificate()
  const serverKey = newServerKey()
  const cleanups: Array<() => Promise<unknown>> = []
  return {
    tls,
    serverKey,
    setup: async (extraEnv = {}) => {
      const db = await scratchDatabase()
      cleanups.push(db.drop)
      const dir = mkdtempSync(join(tmpdir(), "ratings-webhooks-"))
      const env: Record<string, string> = {
        DATABASE_URL: db.url,
        RATINGS_DATA_DIR: join(dir, "data"),
        RATINGS_SECRET_KEY: serverKey,
        NODE_ENV: "test",
        RATINGS_WEBHOOK_RETRY_SCALE: String(TestRetryScale),
        RATINGS_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
        NODE_EXTRA_CA_CERTS: tls.certFile,
        HOST: "127.0.0.1",
        ...extraEnv
      }
      const file = join(dir, "import.json")
      writeFileSync(file, JSON.stringify(exampleWithDraft()))
      const imported = await runCli(["import", file], env)
      if (imported.code !== 0) throw new Error(`ratings import failed:\n${imported.stdout}${imported.stderr}`)
      return { databaseUrl: db.url, env }
    },
    publishLendwell: async (env) => {
      const r = await runCli(["publish", "protocol", "lendwell", "--reasoning", "re-rating"], env)
      if (r.code !== 0) throw new Error(`ratings publish failed:\n${r.stdout}${r.stderr}`)
      return Number(/(\d+) webhook deliveries queued/.exec(r.stdout)?.[1])
    },
    startServer: async (env) => {
      const port = await Effect.runPromise(freePort)
      const child = startCli(["serve"], { ...env, PORT: String(port) })
      let output = ""
      child.stdout?.on("data", (d) => (output += d))
      child.stderr?.on("data", (d) => (output += d))
      cleanups.push(async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
        await ended(child)
      })
      await waitForOutput(child, /Listening on/, 60_000)
      return { child, port, output: () => output }
    },
    receiver: async (answer) => {
      const receiver = await startReceiver(tls, answer)
      cleanups.push(receiver.close)
      return receiver
    },
    dispose: async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined)
    }
  }
}

// ------------------------------------------------------------------ outbox

export interface DeliveryRow {
  readonly delivery_id: string
  readonly rule_id: string
  readonly event: string
  readonly body: string
  readonly status: "pending" | "delivered" | "failed"
  readonly cycle: number
  readonly attempts: number
  readonly next_attempt_at: Date | null
  readonly last_error: string | null
}

export interface AttemptRow {
  readonly delivery_id: string
  readonly cycle: number
  readonly attempt: number
  readonly started_at: Date
  readonly status_code: number | null
  readonly outcome: string
  readonly error: string | null
}

export interface OutboxState {
  readonly deliveries: ReadonlyArray<DeliveryRow>
  /** Every attempt of each delivery, by cycle then attempt. */
  readonly attempts: ReadonlyMap<string, ReadonlyArray<AttemptRow>>
}

/** The outbox tables as they are now, read with plain SQL. */
export const readOutbox = async (databaseUrl: string): Promise<OutboxState> => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const deliveries = await client.query<DeliveryRow>(
      `SELECT delivery_id, rule_id, event, body, status, cycle, attempts, next_attempt_at, last_error
       FROM webhook_deliveries ORDER BY seq`
    )
    const attemptRows = await client.query<AttemptRow>(
      `SELECT delivery_id, cycle, attempt, started_at, status_code, outcome, error
       FROM webhook_delivery_attempts ORDER BY delivery_id, cycle, attempt`
    )
    const attempts = new Map<string, Array<AttemptRow>>()
    for (const a of attemptRows.rows) attempts.set(a.delivery_id, [...(attempts.get(a.delivery_id) ?? []), a])
    return { deliveries: deliveries.rows, attempts }
  } finally {
    await client.end()
  }
}

/**
 * Polls until `done` holds of the outbox, and returns that state; fails with
 * the last state's statuses after `timeoutMs`. The processes under test run
 * on their own clocks, so there is nothing to advance: only to observe.
 */
export const waitForOutbox = async (
  databaseUrl: string,
  done: (state: OutboxState) => boolean,
  timeoutMs: number
): Promise<OutboxState> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const state = await readOutbox(databaseUrl)
    if (done(state)) return state
    if (Date.now() > deadline) {
      const counts: Record<string, number> = {}
      for (const d of state.deliveries) counts[d.status] = (counts[d.status] ?? 0) + 1
      throw new Error(`outbox not settled within ${timeoutMs} ms: ${JSON.stringify(counts)}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Polls the receiver until `done` holds (the receiver is in this process: a short poll). */
export const waitForReceiver = async (
  receiver: Receiver,
  done: (receiver: Receiver) => boolean,
  timeoutMs: number
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!done(receiver)) {
    if (Date.now() > deadline) {
      throw new Error(
        `receiver condition not met within ${timeoutMs} ms (${receiver.requests.length} requests)`
      )
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** Every delivery is delivered or failed: nothing is pending. */
export const settled = (state: OutboxState): boolean =>
  state.deliveries.length > 0 && state.deliveries.every((d) => d.status !== "pending")
