/**
 * `ratings incidents ingest` as an operator runs it (in this process, as
 * CliHarness runs commands; standard input and one refused file also by the
 * real binary, in a child process), against a real Postgres; what it stored
 * is read back through the Postgres IncidentRepository. Covers the spec's
 * incident rules as the CLI exposes them (part 2 "Incident", part 3
 * "Incident tier") and the refusal of bad input with nothing written.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as PgIncidentRepository from "@ratings/adapters-sql/PgIncidentRepository"
import { IncidentRepository } from "@ratings/domain/ports/IncidentRepository"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { database } from "../src/Layers.ts"
import { type CliResult, MainScript, runCli, runCliBothWays, scratchDatabase } from "./CliHarness.ts"

let db: Awaited<ReturnType<typeof scratchDatabase>>
let dir: string
let env: Record<string, string | undefined>

beforeAll(async () => {
  db = await scratchDatabase()
  dir = mkdtempSync(join(tmpdir(), "ratings-incidents-"))
  env = { DATABASE_URL: db.url, RATINGS_DATA_DIR: join(dir, "data") }
}, 60_000)

afterAll(async () => {
  await db.drop()
})

let fileNo = 0
const write = (text: string, ext = "json"): string => {
  const file = join(dir, `reports-${fileNo++}.${ext}`)
  writeFileSync(file, text)
  return file
}

const ingest = (file: string) => Effect.promise(() => runCli(["incidents", "ingest", file], env))

/** `ratings incidents ingest -` with `input` on standard input. */
const ingestStdin = (input: string) =>
  Effect.promise(
    () =>
      new Promise<CliResult>((resolve, reject) => {
        const child = spawn(process.execPath, [MainScript, "incidents", "ingest", "-"], {
          env: { ...process.env, ...env }
        })
        let stdout = ""
        let stderr = ""
        child.stdout.on("data", (d) => (stdout += d))
        child.stderr.on("data", (d) => (stderr += d))
        child.on("error", reject)
        child.on("close", (code) => resolve({ code, stdout, stderr }))
        child.stdin.end(input)
      })
  )

const succeeded = (r: CliResult): string => {
  assert.strictEqual(r.code, 0, r.stdout + r.stderr)
  return r.stdout
}

// The CLI has migrated the scratch database by the time these run.
const Stores = Layer.unwrap(
  Effect.sync(() => PgIncidentRepository.layer.pipe(Layer.provideMerge(database(db.url))))
)

const withStores = <A, E>(effect: Effect.Effect<A, E, IncidentRepository | SqlClient.SqlClient>) =>
  Effect.provide(effect, Stores)

const storedByNonce = (nonce: string) =>
  withStores(Effect.flatMap(Effect.service(IncidentRepository), (repo) => repo.findByNonce(nonce)))

/** Every served incident, at any tier. */
const feed = withStores(
  Effect.flatMap(Effect.service(IncidentRepository), (repo) =>
    repo.feed({ min_status: "rumored", limit: 200, offset: 0 })
  )
)

const servedItem = (incidentId: string) =>
  Effect.map(feed, (page) => page.items.find((i) => i.incident_id === incidentId))

/** Rows of every incident table: what "nothing was stored" is checked against. */
const rowCounts = withStores(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ incidents: number; nonces: number; sources: number }>`
      SELECT (SELECT count(*)::int FROM incidents) AS incidents,
             (SELECT count(*)::int FROM incident_nonces) AS nonces,
             (SELECT count(*)::int FROM incident_sources) AS sources
    `
    return row!
  })
)

/** Runs an ingest that must be refused: exit code 1, nothing stored; gives stderr. */
const refused = (run: Effect.Effect<CliResult>) =>
  Effect.gen(function* () {
    const before = yield* rowCounts
    const r = yield* run
    assert.strictEqual(r.code, 1, r.stdout + r.stderr)
    assert.include(r.stderr, "nothing was ingested")
    assert.strictEqual(r.stdout, "", "no report is listed as ingested")
    assert.deepStrictEqual(yield* rowCounts, before, "no incident row was written")
    return r.stderr
  })

const report = (fields: {
  readonly nonce: string
  readonly protocol: string
  readonly handle: string
  readonly tier?: string
  readonly victims?: ReadonlyArray<string>
  readonly first_seen_at?: string
}) => ({
  nonce: fields.nonce,
  protocol_name: fields.protocol,
  chain: "ethereum",
  exploit_class: "REENTRANCY",
  loss_estimate_usd: 1_250_000,
  victim_addresses: fields.victims ?? [],
  source: { handle: fields.handle },
  claimed_tier: fields.tier ?? "confirmed",
  first_seen_at: fields.first_seen_at ?? "2026-08-01T10:00:00Z"
})

const incidentIdOf = (line: string | undefined): string => {
  const m = /incident ([0-9a-f-]{36})/.exec(line ?? "")
  assert.isNotNull(m, `no incident id in ${line}`)
  return m![1]!
}

const NotServed = "not served (needs two independent sources)"

describe("ratings incidents ingest (against Postgres)", () => {
  it.live(
    "an incident is served only once two independent sources back it; escalation keeps its incident_id",
    () =>
      Effect.gen(function* () {
        // A single report object: one source, stored but not served.
        const first = succeeded(
          yield* ingest(
            write(JSON.stringify(report({ nonce: "served-1", protocol: "Lendwell", handle: "peckshield" })))
          )
        )
        const [line1] = first.split("\n")
        assert.strictEqual(line1, `report 1 ($): created, incident ${incidentIdOf(line1)}, ${NotServed}`)
        const id = incidentIdOf(line1)
        assert.match(
          first,
          /ingested 1 report \(1 created, 0 escalated, 0 absorbed, 0 duplicate\); 1 incident, 0 served/
        )
        const stored = Option.getOrThrow(yield* storedByNonce("served-1"))
        assert.strictEqual(stored.incident_id, id)
        assert.isNull(stored.status)
        assert.isUndefined(yield* servedItem(id), "a single-sourced incident is not in the feed")

        // A second, independent source: the same incident escalates and is served.
        const second = succeeded(
          yield* ingest(
            write(
              JSON.stringify([
                report({ nonce: "served-2", protocol: "Lendwell", handle: "blockaid", tier: "corroborated" })
              ])
            )
          )
        )
        assert.include(second, `report 1 ($[0]): escalated, incident ${id}, served as corroborated`)
        assert.match(second, /1 incident, 1 served/)
        const item = yield* servedItem(id)
        assert.isDefined(item)
        assert.strictEqual(item!.status, "corroborated")
        assert.strictEqual(item!.source_count, 2)
        assert.deepStrictEqual(
          item!.sources.map((s) => s.handle),
          ["peckshield", "blockaid"]
        )
        // The report said `...Z`; the feed writes the service's form.
        assert.strictEqual(item!.first_seen_at, "2026-08-01T10:00:00+00:00")
      }),
    60_000
  )

  it.live(
    "the same nonce twice changes nothing, in a later run or within one file",
    () =>
      Effect.gen(function* () {
        const pair = [
          report({ nonce: "dup-1", protocol: "Swapwell", handle: "peckshield" }),
          report({ nonce: "dup-2", protocol: "Swapwell", handle: "blockaid" })
        ]
        const file = write(JSON.stringify(pair))
        const first = succeeded(yield* ingest(file))
        const id = incidentIdOf(first.split("\n")[1])
        const storedBefore = yield* storedByNonce("dup-2")
        const servedBefore = yield* servedItem(id)
        const countsBefore = yield* rowCounts
        assert.isDefined(servedBefore)

        const again = succeeded(yield* ingest(file))
        assert.include(again, `report 1 ($[0]): duplicate, incident ${id}, served as confirmed`)
        assert.include(again, `report 2 ($[1]): duplicate, incident ${id}, served as confirmed`)
        assert.match(again, /\(0 created, 0 escalated, 0 absorbed, 2 duplicate\)/)
        assert.deepStrictEqual(yield* storedByNonce("dup-2"), storedBefore)
        assert.deepStrictEqual(yield* servedItem(id), servedBefore, "detected_at did not move")
        assert.deepStrictEqual(yield* rowCounts, countsBefore)

        // Within one file: the repeat is a duplicate and adds no source.
        const repeated = report({ nonce: "dup-3", protocol: "Vaultwell", handle: "peckshield" })
        const inOne = succeeded(yield* ingest(write(JSON.stringify([repeated, repeated]))))
        assert.match(inOne, /report 1 \(\$\[0\]\): created, /)
        const duplicateLine = inOne.split("\n")[1]
        assert.strictEqual(
          duplicateLine,
          `report 2 ($[1]): duplicate, incident ${incidentIdOf(duplicateLine)}, ${NotServed}`
        )
        const record = Option.getOrThrow(yield* storedByNonce("dup-3"))
        assert.deepStrictEqual(record.nonces, ["dup-3"])
        assert.strictEqual(record.sources.length, 1)
      }),
    60_000
  )

  it.live(
    "bad JSON is reported with its line and column, and nothing is ingested (not even the valid reports before it)",
    () =>
      Effect.gen(function* () {
        const valid = JSON.stringify(report({ nonce: "badjson-1", protocol: "Lendwell", handle: "a" }))
        // the real binary, and in this process alike
        const file = write(`[\n  ${valid},\n  {"nonce": "badjson-2",}\n]\n`)
        const stderr = yield* refused(
          Effect.promise(() => runCliBothWays(["incidents", "ingest", file], env))
        )
        assert.match(
          stderr,
          /reports-\d+\.json: invalid JSON at line 3, column 25: a trailing comma before '}'/
        )
        assert.isTrue(Option.isNone(yield* storedByNonce("badjson-1")))
      }),
    60_000
  )

  it.live(
    "a schema violation is reported with the report's index and the schema's reason, and nothing is ingested",
    () =>
      Effect.gen(function* () {
        const stderr = yield* refused(
          ingest(
            write(
              JSON.stringify([
                report({ nonce: "schema-1", protocol: "Lendwell", handle: "a" }),
                report({ nonce: "schema-2", protocol: "Lendwell", handle: "b", first_seen_at: "2026-08-01" }),
                {
                  ...report({ nonce: "schema-3", protocol: "Lendwell", handle: "c" }),
                  exploit_class: "reentrancy"
                }
              ])
            )
          )
        )
        assert.include(stderr, "ingest refused: 2 errors, nothing was ingested")
        assert.match(stderr, /report 2 \(\$\[1\]\.first_seen_at\): expected an ISO 8601 date-time .* zone/)
        assert.match(stderr, /report 3 \(\$\[2\]\.exploit_class\): Expected a string matching/)
        assert.notInclude(stderr, "report 1 ", "the valid report is not reported")
        assert.isTrue(Option.isNone(yield* storedByNonce("schema-1")))
      }),
    60_000
  )

  it.live(
    "JSON Lines: an invalid line is reported by its line number; a valid file is ingested in order",
    () =>
      Effect.gen(function* () {
        const a = report({ nonce: "jsonl-1", protocol: "Bridgewell", handle: "peckshield", tier: "rumored" })
        const b = report({ nonce: "jsonl-2", protocol: "Bridgewell", handle: "blockaid", tier: "rumored" })
        const lines = (second: unknown) => `${JSON.stringify(a)}\n\n${JSON.stringify(second)}\n`

        const stderr = yield* refused(ingest(write(lines({ ...b, claimed_tier: "certain" }), "jsonl")))
        assert.match(
          stderr,
          /report 2 \(line 3, \$\.claimed_tier\): Expected "rumored" \| "corroborated" \| "confirmed"/
        )
        const broken = yield* refused(ingest(write(`${JSON.stringify(a)}\n{"nonce": }\n`, "jsonl")))
        assert.match(broken, /invalid JSON at line 2, column 11: expected a value, found "}"/)

        const out = succeeded(yield* ingest(write(lines(b), "jsonl")))
        const id = incidentIdOf(out.split("\n")[0])
        assert.include(out, `report 1 (line 1): created, incident ${id}, ${NotServed}`)
        assert.include(out, `report 2 (line 3): escalated, incident ${id}, served as rumored`)
        assert.strictEqual((yield* servedItem(id))?.status, "rumored")
      }),
    60_000
  )

  it.live(
    "reports on standard input (-) are ingested; an empty input is refused",
    () =>
      Effect.gen(function* () {
        const reports = [
          report({ nonce: "stdin-1", protocol: "Oraclewell", handle: "peckshield" }),
          report({ nonce: "stdin-2", protocol: "Oraclewell", handle: "certik", tier: "corroborated" })
        ]
        const out = succeeded(yield* ingestStdin(reports.map((r) => JSON.stringify(r)).join("\n")))
        const id = incidentIdOf(out.split("\n")[0])
        assert.include(out, `report 2 (line 2): escalated, incident ${id}, served as corroborated`)
        assert.strictEqual(Option.getOrThrow(yield* storedByNonce("stdin-2")).incident_id, id)
        assert.strictEqual((yield* servedItem(id))?.status, "corroborated")

        const empty = yield* refused(ingestStdin(""))
        assert.include(empty, "<stdin>: the input is empty")
      }),
    60_000
  )

  it.live(
    "nonces and victim addresses are stored but never printed, on success or on refusal",
    () =>
      Effect.gen(function* () {
        const secrets = {
          nonce1: "nonce-7f3a9c2e51",
          nonce2: "nonce-b40d6e8811",
          victim1: "0x9f8e7d6c5b4a39281706f5e4d3c2b1a098765432",
          victim2: "0x1234abcd5678ef901234abcd5678ef901234abcd"
        }
        const out = yield* ingest(
          write(
            JSON.stringify([
              report({
                nonce: secrets.nonce1,
                protocol: "Stakewell",
                handle: "a",
                victims: [secrets.victim1]
              }),
              report({
                nonce: secrets.nonce2,
                protocol: "Stakewell",
                handle: "b",
                victims: [secrets.victim2]
              })
            ])
          )
        )
        succeeded(out)
        for (const secret of Object.values(secrets)) assert.notInclude(out.stdout + out.stderr, secret)
        const stored = Option.getOrThrow(yield* storedByNonce(secrets.nonce2))
        assert.deepStrictEqual(stored.nonces, [secrets.nonce1, secrets.nonce2])
        assert.deepStrictEqual(stored.victim_addresses, [secrets.victim1, secrets.victim2])

        // Wrong types make the schema reject these very values; the messages do not repeat them.
        const bad = {
          ...report({ nonce: "x", protocol: "Stakewell", handle: "c" }),
          nonce: 918273645546372,
          victim_addresses: "0xfeedfacefeedfacefeedfacefeedfacefeedface"
        }
        const stderr = yield* refused(ingest(write(JSON.stringify([bad]))))
        assert.match(stderr, /report 1 \(\$\[0\]\.nonce\): Expected string/)
        assert.match(stderr, /report 1 \(\$\[0\]\.victim_addresses\): Expected array/)
        assert.notInclude(stderr, "918273645546372")
        assert.notInclude(stderr, "0xfeedface")
      }),
    60_000
  )
})
