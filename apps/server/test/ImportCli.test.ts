/**
 * `ratings import` and `ratings publish` as an operator runs them, against a
 * real Postgres: every error class of issue 3 with its text, and the database
 * unchanged after a refused import; idempotent re-import; publish.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import pg from "pg"
import { runCli, runCliBothWays, scratchDatabase } from "./CliHarness.ts"

const docPath = join(import.meta.dirname, "..", "..", "..", "docs", "import-format.md")
const example = (): any =>
  JSON.parse(
    /<!-- import-example:begin -->\s*```json\n([\s\S]*?)```/.exec(readFileSync(docPath, "utf8"))![1]!
  )

const Tables = [
  "entities",
  "questions",
  "scorecards",
  "answers",
  "rating_history",
  "incidents",
  "quantum_snapshots"
]

let db: Awaited<ReturnType<typeof scratchDatabase>>
let dir: string
let env: Record<string, string | undefined>

const counts = async (): Promise<Record<string, number>> => {
  const c = new pg.Client({ connectionString: db.url })
  await c.connect()
  try {
    const out: Record<string, number> = {}
    for (const t of Tables) {
      const exists = await c.query("SELECT to_regclass($1) AS r", [t])
      out[t] =
        exists.rows[0].r === null ? 0 : Number((await c.query(`SELECT count(*) AS n FROM ${t}`)).rows[0].n)
    }
    return out
  } finally {
    await c.end()
  }
}

let fileNo = 0
const write = (content: unknown, raw?: string): string => {
  const file = join(dir, `import-${fileNo++}.json`)
  writeFileSync(file, raw ?? JSON.stringify(content, null, 2))
  return file
}

/** Runs an import that must be refused: exit code 1, the expected text, and nothing written. */
const refused = async (content: unknown, expected: ReadonlyArray<string | RegExp>, raw?: string) => {
  const before = await counts()
  const r = await runCli(["import", write(content, raw)], env)
  assert.strictEqual(r.code, 1, r.stdout + r.stderr)
  assert.include(r.stderr, "nothing was written")
  for (const e of expected) {
    if (typeof e === "string") assert.include(r.stderr, e)
    else assert.match(r.stderr, e)
  }
  assert.deepStrictEqual(await counts(), before, "the database is unchanged")
  return r.stderr
}

beforeAll(async () => {
  db = await scratchDatabase()
  dir = mkdtempSync(join(tmpdir(), "ratings-import-"))
  env = { DATABASE_URL: db.url, RATINGS_DATA_DIR: join(dir, "data") }
}, 60_000)

afterAll(async () => {
  await db.drop()
})

describe("ratings import (against Postgres)", () => {
  it("bad JSON is reported with its file, line and column, and nothing is written", async () => {
    await refused(
      undefined,
      [/import-\d+\.json: invalid JSON at line 3, column \d+/],
      '{\n  "format": "ratings-import/v1",\n  "entities": [,]\n}'
    )
  }, 60_000)

  it("a schema violation is reported with its JSON path and reason", async () => {
    const bad = example()
    bad.entities[2].record.slug = "Not A Slug"
    await refused(bad, ["$.entities[2].record.slug", "kebab-case"])
  }, 60_000)

  it("domain weights that do not sum to 100 are refused", async () => {
    const bad = example()
    bad.scorecards[0].domain_weights = { security: 60, governance: 30 }
    await refused(bad, ["$.scorecards[0].domain_weights", "sum to 90"])
  }, 60_000)

  it("unknown question ids are refused", async () => {
    const bad = example()
    bad.scorecards[1].answers[0].question_id = "PROT-NOPE-99"
    await refused(bad, ["PROT-NOPE-99"])
  }, 60_000)

  it("duplicate slugs are refused", async () => {
    const bad = example()
    bad.entities.push({
      ...bad.entities[2],
      record: { ...bad.entities[2].record, id: "1c9b7c8e-2b7e-4c55-9a4c-0d3c1f6b9e21" }
    })
    await refused(bad, ["lendwell", /duplicate|already/i])
  }, 60_000)

  it("a bridge question list that is not the 62-question catalogue is refused", async () => {
    const bad = example()
    bad.questions.push({
      id: "BRG-SEC-01",
      entity_type: "bridge",
      domain: "security",
      text: "Audited?",
      weight: 3,
      max_score: 4,
      criteria: [],
      position: 1
    })
    await refused(bad, ["62"])
  }, 60_000)

  it("every error of an input is reported at once", async () => {
    const bad = example()
    bad.entities[0].record.slug = "Not A Slug"
    bad.scorecards[0].domain_weights = { security: 60, governance: 30 }
    bad.scorecards[1].answers[0].question_id = "PROT-NOPE-99"
    const text = await refused(bad, ["$.entities[0].record.slug", "sum to 90", "PROT-NOPE-99"])
    const count = Number(/import rejected: (\d+) error/.exec(text)?.[1])
    assert.isAtLeast(count, 3)
  }, 60_000)

  it("a valid input is written; importing it again changes nothing", async () => {
    const file = write(example())
    const first = await runCli(["import", file], env)
    assert.strictEqual(first.code, 0, first.stderr)
    assert.match(first.stdout, /entities\s+3 created/)
    const after = await counts()
    assert.strictEqual(after.entities, 3)
    assert.strictEqual(after.rating_history! >= 2, true)
    // the real binary, and in this process alike
    const second = await runCliBothWays(["import", file], env)
    assert.strictEqual(second.code, 0, second.stderr)
    assert.match(second.stdout, /entities\s+0 created, 0 updated, 3 unchanged/)
    assert.notMatch(second.stdout, /[1-9]\d* (created|updated)/)
    assert.deepStrictEqual(await counts(), after)
  }, 90_000)

  it("ratings publish publishes the latest draft with figures computed by the scoring core", async () => {
    const data = example()
    // a third version, left as a draft for the operator to publish
    const v3 = structuredClone(data.scorecards[1])
    v3.id = "7d3f0a4e-9a8b-4c1d-8e2f-3a4b5c6d7e8f"
    v3.scorecard_version = 3
    v3.answers = v3.answers.map((a: any, i: number) => ({
      ...a,
      id: `7d3f0a4e-9a8b-4c1d-8e2f-3a4b5c6d7e${(90 + i).toString(16)}`
    }))
    data.scorecards.push(v3)
    const imported = await runCli(["import", write(data)], env)
    assert.strictEqual(imported.code, 0, imported.stderr)
    const r = await runCli(["publish", "protocol", "lendwell", "--reasoning", "quarterly review"], env)
    assert.strictEqual(r.code, 0, r.stderr)
    assert.match(r.stdout, /published protocol lendwell v3: [\d.]+ [A-D]+/)
    const c = new pg.Client({ connectionString: db.url })
    await c.connect()
    const rows = await c.query(
      "SELECT s.scorecard_version, s.status FROM scorecards s JOIN entities e ON e.id = s.entity_id WHERE e.slug = 'lendwell' ORDER BY 1"
    )
    const history = await c.query(
      "SELECT reasoning FROM rating_history h JOIN entities e ON e.id = h.entity_id WHERE e.slug = 'lendwell' AND h.scorecard_version = 3"
    )
    await c.end()
    assert.deepStrictEqual(
      rows.rows.map((x) => [x.scorecard_version, x.status]),
      [
        [1, "superseded"],
        [2, "superseded"],
        [3, "published"]
      ]
    )
    assert.strictEqual(history.rows[0]?.reasoning, "quarterly review")
    const again = await runCli(["publish", "protocol", "lendwell", "--reasoning", "again"], env)
    assert.strictEqual(again.code, 1)
    assert.include(again.stderr, "no draft scorecard")
  }, 90_000)
})
