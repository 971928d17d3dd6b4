/**
 * `ratings import` as an operator meets it, against a real Postgres: the
 * example of docs/import-format.md, as written, into an empty database and
 * into the demo database; `--dry-run` prints a real run's report and leaves
 * every table as it was (row counts and checksums); an import that would
 * remove stored data is refused unless `--replace` names what it removes;
 * `ratings questions list` prints the catalogue answers are written against.
 * What is expected is derived from the demo data, not from its sizes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import pg from "pg"
import { runCli, scratchDatabase } from "./CliHarness.ts"
import { createRules, newServerKey } from "./WebhookHarness.ts"

const root = join(import.meta.dirname, "..", "..", "..")
const DemoData = join(root, "packages", "demo-data", "data")

const docExample = (): string =>
  /<!-- import-example:begin -->\s*```json\n([\s\S]*?)```/.exec(
    readFileSync(join(root, "docs", "import-format.md"), "utf8")
  )![1]!

type Db = Awaited<ReturnType<typeof scratchDatabase>>
let empty: Db
let demo: Db
let dir: string
const envOf = (db: Db) => ({ DATABASE_URL: db.url, RATINGS_DATA_DIR: join(dir, "data") })

const query = async <R extends Record<string, unknown>>(
  db: Db,
  text: string,
  values: Array<unknown> = []
) => {
  const c = new pg.Client({ connectionString: db.url })
  await c.connect()
  try {
    return (await c.query<R>(text, values)).rows
  } finally {
    await c.end()
  }
}

/** Every table of the database: its row count and a checksum of its rows. */
const tableStates = async (db: Db): Promise<Record<string, string>> => {
  const tables = await query<{ name: string }>(
    db,
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1"
  )
  const out: Record<string, string> = {}
  for (const { name } of tables) {
    const [row] = await query<{ n: string; sum: string }>(
      db,
      `SELECT count(*)::text AS n, md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS sum FROM "${name}" t`
    )
    out[name] = `${row!.n} ${row!.sum}`
  }
  return out
}

let fileNo = 0
const write = (text: string): string => {
  const file = join(dir, `safety-${fileNo++}.json`)
  writeFileSync(file, text)
  return file
}

/** The report lines of an import's standard output, without the dry run's first line. */
const reportOf = (stdout: string) => stdout.split("\n").filter((l) => l !== "" && !l.startsWith("dry run:"))
const removedCounts = (stdout: string) => [...stdout.matchAll(/(\d+) removed/g)].map((m) => Number(m[1]))

beforeAll(async () => {
  ;[empty, demo] = await Promise.all([scratchDatabase(), scratchDatabase()])
  dir = mkdtempSync(join(tmpdir(), "ratings-import-safety-"))
  const loaded = await runCli(["import", DemoData], envOf(demo))
  assert.strictEqual(loaded.code, 0, loaded.stderr)
}, 120_000)

afterAll(async () => {
  await Promise.all([empty?.drop(), demo?.drop()])
})

describe("the doc's example, as written", () => {
  it("imports into an empty database, and again as unchanged", async () => {
    const file = write(docExample())
    const first = await runCli(["import", file], envOf(empty))
    assert.strictEqual(first.code, 0, first.stderr)
    assert.match(first.stdout, /entities\s+3 created/)
    assert.match(first.stdout, /questions\s+3 created/)
    const again = await runCli(["import", file], envOf(empty))
    assert.strictEqual(again.code, 0, again.stderr)
    assert.notMatch(again.stdout, /[1-9]\d* (created|updated|removed)/)
  }, 90_000)

  it("imports into the demo database without removing or changing anything stored", async () => {
    const catalogues = await query(demo, "SELECT entity_type, id, text FROM questions ORDER BY 1, 2")
    const published = await query(
      demo,
      "SELECT entity_id, scorecard_version FROM scorecards WHERE status = 'published' ORDER BY 1, 2"
    )
    const quantum = await query(demo, "SELECT rows FROM quantum_snapshots ORDER BY id DESC LIMIT 1")
    const r = await runCli(["import", write(docExample())], envOf(demo))
    assert.strictEqual(r.code, 0, r.stderr)
    assert.deepStrictEqual(removedCounts(r.stdout), [0])
    assert.match(r.stdout, /entities\s+3 created, 0 updated/)
    assert.deepStrictEqual(
      await query(demo, "SELECT entity_type, id, text FROM questions ORDER BY 1, 2"),
      catalogues,
      "the demo's catalogues are as they were"
    )
    const after = await query(
      demo,
      "SELECT entity_id, scorecard_version FROM scorecards WHERE status = 'published' ORDER BY 1, 2"
    )
    for (const p of published) assert.deepInclude(after, p, "every published demo scorecard stays published")
    assert.deepStrictEqual(
      await query(demo, "SELECT rows FROM quantum_snapshots ORDER BY id DESC LIMIT 1"),
      quantum
    )
  }, 90_000)
})

/** Version 3 of the example's protocol, published: it supersedes the published version 2. */
const reRating = (): string => {
  const example = JSON.parse(docExample())
  const v3 = { ...example.scorecards[1], scorecard_version: 3 }
  v3.answers = v3.answers.map((a: Record<string, unknown>) => ({ ...a, score: 4, response: "re-rated" }))
  delete v3.composite_score
  const publication = {
    ...example.publications[1],
    scorecard_version: 3,
    published_at: "2026-09-01T00:00:00Z"
  }
  return JSON.stringify({ format: "ratings-import/v1", scorecards: [v3], publications: [publication] })
}

describe("ratings import --dry-run and --replace (on the demo database)", () => {
  it("refuses to supersede a published scorecard without --replace scorecards, dry or not, writing nothing", async () => {
    const file = write(reRating())
    const before = await tableStates(demo)
    const dry = await runCli(["import", "--dry-run", file], envOf(demo))
    const real = await runCli(["import", file], envOf(demo))
    for (const r of [dry, real]) {
      assert.strictEqual(r.code, 1, r.stdout + r.stderr)
      assert.include(r.stderr, "import refused: it would remove stored data, nothing was written")
      assert.include(
        r.stderr,
        "scorecards: 1 published scorecard(s) superseded by a publication (protocol lendwell v2)"
      )
      assert.include(r.stderr, "--replace scorecards")
    }
    assert.include(dry.stderr, "dry run: nothing was written")
    assert.deepStrictEqual(await tableStates(demo), before)
  }, 90_000)

  it("a dry run prints the real run's report, webhook deliveries included, and leaves every table as it was", async () => {
    await createRules(demo.url, newServerKey(), [
      { webhookUrl: "https://hooks.example/a", slugs: ["lendwell"], events: ["rating.changed"] }
    ])
    const file = write(reRating())
    const deliveries = async () =>
      (await query<{ n: number }>(demo, "SELECT count(*)::int AS n FROM webhook_deliveries"))[0]!.n
    const queuedBefore = await deliveries()
    const before = await tableStates(demo)
    const dry = await runCli(["import", "--dry-run", "--replace", "scorecards", file], envOf(demo))
    assert.strictEqual(dry.code, 0, dry.stderr)
    assert.match(dry.stdout, /^dry run: nothing was written/)
    assert.match(dry.stdout, /events\s+1 webhook deliveries queued/)
    assert.deepStrictEqual(await tableStates(demo), before, "no table changed: rows and checksums")
    const real = await runCli(["import", "--replace", "scorecards", file], envOf(demo))
    assert.strictEqual(real.code, 0, real.stderr)
    assert.deepStrictEqual(reportOf(real.stdout), reportOf(dry.stdout))
    assert.notDeepEqual(await tableStates(demo), before)
    assert.strictEqual(await deliveries(), queuedBefore + 1, "the delivery the dry run counted was queued")
  }, 90_000)

  it("a dry run of invalid input exits 1 with the real run's error report, JSON paths and all", async () => {
    const bad = JSON.parse(docExample())
    bad.entities[2].record.slug = "Not A Slug"
    const file = write(JSON.stringify(bad))
    const before = await tableStates(demo)
    const dry = await runCli(["import", "--dry-run", file], envOf(demo))
    const real = await runCli(["import", file], envOf(demo))
    assert.strictEqual(dry.code, 1)
    assert.include(dry.stderr, "$.entities[2].record.slug")
    const errors = (s: string) => s.split("\n").filter((l) => l.includes("$."))
    assert.deepStrictEqual(errors(dry.stderr), errors(real.stderr))
    assert.deepStrictEqual(await tableStates(demo), before)
  }, 90_000)

  it("refuses to drop quantum rows without --replace quantum, saying how many", async () => {
    const [latest] = await query<{ rows: Array<{ slug: string }> }>(
      demo,
      "SELECT rows FROM quantum_snapshots ORDER BY id DESC LIMIT 1"
    )
    const lost = new Set(latest!.rows.map((r) => r.slug).filter((s) => s !== "ethereum")).size
    assert.isAbove(lost, 0)
    const example = /<!-- quantum-example:begin -->\s*```json\n([\s\S]*?)```/.exec(
      readFileSync(join(root, "docs", "import-format.md"), "utf8")
    )![1]!
    const file = write(example.replace("2026-08-01T00:00:00Z", "2026-11-20T00:00:00Z"))
    const before = await tableStates(demo)
    for (const args of [["--dry-run"], []]) {
      const r = await runCli(["import", ...args, file], envOf(demo))
      assert.strictEqual(r.code, 1, r.stdout)
      assert.include(r.stderr, `quantum: ${lost} row(s) of the stored quantum snapshot the new one lacks`)
      assert.include(r.stderr, "run the import again with --replace quantum")
    }
    const allowed = await runCli(["import", "--dry-run", "--replace", "quantum", file], envOf(demo))
    assert.strictEqual(allowed.code, 0, allowed.stderr)
    assert.include(allowed.stdout, `removed (--replace) quantum: ${lost} row(s)`)
    assert.deepStrictEqual(await tableStates(demo), before)
  }, 90_000)

  it("with --replace questions the import's questions are the whole catalogue; an unknown kind is an error", async () => {
    const [{ n }] = (await query<{ n: number }>(
      demo,
      "SELECT count(*)::int AS n FROM questions WHERE entity_type = 'protocol'"
    )) as [{ n: number }]
    const file = write(docExample())
    const r = await runCli(["import", "--dry-run", "--replace", "questions", file], envOf(demo))
    assert.strictEqual(r.code, 0, r.stderr)
    assert.deepStrictEqual(removedCounts(r.stdout), [n - 3])
    const bogus = await runCli(["import", "--replace", "questions,everything", file], envOf(demo))
    assert.strictEqual(bogus.code, 1)
    assert.include(bogus.stderr, '--replace names "everything"; the kinds are questions, quantum, scorecards')
  }, 90_000)
})

describe("ratings questions list", () => {
  it("prints a type's catalogue in canonical order, as text and as JSON", async () => {
    const stored = await query<{ id: string; domain: string }>(
      demo,
      "SELECT id, domain FROM questions WHERE entity_type = 'protocol' ORDER BY position"
    )
    const text = await runCli(["questions", "list", "protocol"], envOf(demo))
    assert.strictEqual(text.code, 0, text.stderr)
    const lines = text.stdout.trim().split("\n")
    assert.strictEqual(lines[0], `protocol catalogue: ${stored.length} question(s), in canonical order`)
    assert.deepStrictEqual(
      lines.slice(1).map((l) => l.trim().split(/\s+/).slice(1, 3)),
      stored.map((q) => [q.id, q.domain])
    )
    const json = await runCli(["questions", "list", "protocol", "--json"], envOf(demo))
    assert.deepStrictEqual(
      JSON.parse(json.stdout).map((q: { id: string }) => q.id),
      stored.map((q) => q.id)
    )
    const none = await runCli(["questions", "list", "bridge"], envOf(empty))
    assert.strictEqual(none.code, 0)
    assert.include(none.stdout, "no bridge questions are stored")
  }, 90_000)
})
