/**
 * Coverage requests end to end (issue 17 point 3): a real `ratings serve`
 * takes them on POST /api/v1/contacts with the allowance its environment sets
 * (RATINGS_CONTACTS_LIMIT, behind TRUST_PROXY), and `ratings contacts
 * list|close` read and close them in the same database, as an operator runs
 * them (the real binary, and in this process alike): one stored request per
 * open duplicate group however many senders repeat it, each sender with a
 * reference id of its own, and stored text printed so that it cannot hide or
 * reorder itself. The server's output never holds a requester's address.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { Effect } from "effect"
import pg from "pg"
import { exited, runCli, runCliBothWays, scratchDatabase, startCli, waitForOutput } from "./CliHarness.ts"

let db: Awaited<ReturnType<typeof scratchDatabase>>
let env: Record<string, string | undefined>
let server: ReturnType<typeof startCli>
let base: string
let serverOutput = ""

beforeAll(async () => {
  db = await scratchDatabase()
  const dataDir = mkdtempSync(join(tmpdir(), "ratings-contacts-"))
  const port = await Effect.runPromise(freePort)
  env = {
    DATABASE_URL: db.url,
    RATINGS_DATA_DIR: dataDir,
    PORT: String(port),
    TRUST_PROXY: "true",
    RATINGS_CONTACTS_LIMIT: "3",
    RATINGS_CONTACTS_WINDOW: "1 hour"
  }
  server = startCli(["serve", "--no-demo"], env)
  server.stdout?.on("data", (d) => (serverOutput += d))
  server.stderr?.on("data", (d) => (serverOutput += d))
  await waitForOutput(server, /Listening on/, 60_000)
  base = `http://127.0.0.1:${port}/api/v1`
}, 90_000)

afterAll(async () => {
  server.kill("SIGTERM")
  await exited(server)
  await db.drop()
})

let addresses = 0

/** A coverage request from its own client address (X-Forwarded-For, trusted), unless `from` names one. */
const request = async (body: unknown, from = `192.0.2.${++addresses}`) => {
  const res = await fetch(`${base}/contacts`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": from },
    body: JSON.stringify(body)
  })
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> }
}

/** The table's data lines (the header is the first line), split on runs of two or more spaces. */
const tableRows = (stdout: string): Array<Array<string>> =>
  stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(1)
    .map((line) => line.split(/ {2,}/))

describe("coverage requests: the served route and ratings contacts", () => {
  it("RATINGS_CONTACTS_LIMIT sets the served allowance per client address: the fourth request from one address within the hour is a 429 with Retry-After; another address is still served", async () => {
    const statuses: Array<number> = []
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await request({ protocol_name: `Limit ${i}`, contact_email: "limit@example.com" }, "198.18.0.1"))
          .status
      )
    assert.deepStrictEqual(statuses, [201, 201, 201, 429])
    const refused = await request(
      { protocol_name: "Limit 9", contact_email: "limit@example.com" },
      "198.18.0.1"
    )
    assert.strictEqual(refused.status, 429)
    assert.isAbove(Number(refused.headers.get("retry-after")), 0)
    assert.strictEqual(refused.headers.get("ratelimit-policy"), "3;w=3600")
    assert.strictEqual(
      (await request({ protocol_name: "Limit 9", contact_email: "limit@example.com" })).status,
      201
    )
  }, 60_000)

  it("contacts list shows the open requests oldest first as a table (id, received, status, type, entity, name, email, message on one line); --json prints them whole; --status picks closed or all", async () => {
    const first = await request({
      protocol_name: "Table Alpha",
      contact_email: "alpha@example.com",
      entity_type: "protocol",
      message: "line one\nline two"
    })
    const second = await request({
      protocol_name: "Table Beta",
      contact_email: "beta@example.com",
      request_type: "correction"
    })
    assert.strictEqual(first.status, 201)
    assert.strictEqual(second.status, 201)

    const listed = await runCliBothWays(["contacts", "list"], env)
    assert.strictEqual(listed.code, 0, listed.stderr)
    assert.match(
      listed.stdout.split("\n")[0]!,
      /^id\s+received\s+status\s+type\s+entity\s+name\s+email\s+message$/
    )
    const rows = tableRows(listed.stdout)
    const alpha = rows.find((r) => r[0] === first.body.id)!
    assert.deepStrictEqual(alpha, [
      String(first.body.id),
      String(first.body.created_at),
      "open",
      "rating-request",
      "protocol",
      "Table Alpha",
      "alpha@example.com",
      "line one line two"
    ])
    const beta = rows.find((r) => r[0] === second.body.id)!
    assert.deepStrictEqual(beta.slice(2), ["open", "correction", "-", "Table Beta", "beta@example.com", "-"])
    assert.isBelow(rows.indexOf(alpha), rows.indexOf(beta), "oldest first")

    const json = await runCli(["contacts", "list", "--json"], env)
    assert.strictEqual(json.code, 0, json.stderr)
    const records = JSON.parse(json.stdout) as Array<Record<string, unknown>>
    assert.deepStrictEqual(
      records.find((r) => r.id === first.body.id),
      { ...first.body, message: "line one\nline two", closed_at: null, receipt_ids: [first.body.id] }
    )

    const closedNone = await runCli(["contacts", "list", "--status", "closed"], env)
    assert.strictEqual(closedNone.code, 0)
    assert.strictEqual(closedNone.stdout, "")
    assert.include(closedNone.stderr, "no closed coverage requests")
    const bad = await runCli(["contacts", "list", "--status", "pending"], env)
    assert.notStrictEqual(bad.code, 0)
  }, 60_000)

  it("contacts close closes an open request (then listed as closed, and the same request may be sent again: 201); closing it again says it was already closed; an unknown or malformed id exits 1 saying so", async () => {
    const sent = { protocol_name: "Close Me", contact_email: "closer@example.com" }
    const open = await request(sent)
    assert.strictEqual(open.status, 201)
    assert.strictEqual((await request(sent)).status, 201, "a repeat while it is open")
    const id = String(open.body.id)

    const closed = await runCli(["contacts", "close", id], env)
    assert.strictEqual(closed.code, 0, closed.stderr)
    assert.strictEqual(closed.stdout.trim(), `coverage request ${id} closed`)
    const again = await runCliBothWays(["contacts", "close", id], env)
    assert.strictEqual(again.code, 0, again.stderr)
    assert.match(
      again.stdout,
      new RegExp(`coverage request ${id} was already closed \\(at .+\\); nothing changed`)
    )

    const listedClosed = tableRows((await runCli(["contacts", "list", "--status", "closed"], env)).stdout)
    assert.deepStrictEqual(listedClosed.find((r) => r[0] === id)?.slice(2, 3), ["closed"])
    assert.notInclude((await runCli(["contacts", "list"], env)).stdout, id, "no longer open")
    const all = (await runCli(["contacts", "list", "--status", "all"], env)).stdout
    assert.include(all, id)

    const renewed = await request(sent)
    assert.strictEqual(renewed.status, 201, "a closed request blocks nothing")
    assert.notStrictEqual(renewed.body.id, id)

    for (const unknown of ["00000000-0000-4000-8000-000000000000", "not-an-id"]) {
      const refused = await runCliBothWays(["contacts", "close", unknown], env)
      assert.strictEqual(refused.code, 1, unknown)
      assert.include(refused.stderr, `no coverage request with id "${unknown}"`)
    }
  }, 60_000)

  it("a repeated coverage request does not return another person's receipt: each sender gets a reference id of its own, contacts list shows one request per open duplicate group (every reference id in --json receipt_ids), and contacts close takes any of them", async () => {
    const first = await request({
      protocol_name: "Obscure Protocol",
      contact_email: "victim@example.com",
      request_type: "correction"
    })
    // From other addresses (each request() speaks from its own), in other spellings.
    const guess = await request({ protocol_name: "obscure  PROTOCOL", contact_email: "victim@EXAMPLE.com" })
    const again = await request({ protocol_name: " OBSCURE protocol", contact_email: "Victim@example.com" })
    assert.deepStrictEqual([first.status, guess.status, again.status], [201, 201, 201])
    assert.strictEqual(new Set([first.body.id, guess.body.id, again.body.id]).size, 3)
    assert.deepStrictEqual(
      [guess.body.protocol_name, guess.body.contact_email, guess.body.request_type],
      ["obscure  PROTOCOL", "victim@EXAMPLE.com", "rating-request"]
    )

    const listed = await runCliBothWays(["contacts", "list"], env)
    assert.strictEqual(listed.code, 0, listed.stderr)
    const rows = tableRows(listed.stdout).filter((r) => /obscure/iu.test(r[5] ?? ""))
    assert.deepStrictEqual(
      rows.map((r) => [r[0], r[3], r[5]]),
      [[String(first.body.id), "correction", "Obscure Protocol"]],
      "one stored request: the first"
    )
    const records = JSON.parse((await runCli(["contacts", "list", "--json"], env)).stdout) as Array<
      Record<string, unknown>
    >
    const stored = records.filter((r) => String(r.contact_email).toLowerCase() === "victim@example.com")
    assert.deepStrictEqual(
      stored.map((r) => [r.id, r.receipt_ids]),
      [[first.body.id, [first.body.id, guess.body.id, again.body.id]]]
    )

    const closed = await runCli(["contacts", "close", String(guess.body.id)], env)
    assert.strictEqual(closed.code, 0, closed.stderr)
    assert.strictEqual(
      closed.stdout.trim(),
      `coverage request ${first.body.id} (reference ${guess.body.id}) closed`
    )
    const closedRows = tableRows((await runCli(["contacts", "list", "--status", "closed"], env)).stdout)
    assert.deepStrictEqual(closedRows.find((r) => r[0] === first.body.id)?.slice(2, 3), ["closed"])
  }, 60_000)

  it("invisible coverage names: contacts list prints stored text safely (rows stored before the rule): every control, zero-width, direction and separator character escaped, in the table and in --json, which parses back to the stored text", async () => {
    const id = "00000000-0000-4000-8000-00000000c011"
    const name = "Evil\u2029Name\u202Egnp.exe\u200B"
    const email = "sneaky\u2028@example.com"
    const message = "line one\nline\u2028two\u200Bzero \u001b[31mred\u009b \u2066iso\u2069 \u{E0041}tag"
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      await client.query(
        `INSERT INTO contact_requests (id, protocol_name, contact_email, request_type, message, entity_key,
           email_key, status, created_at)
         VALUES ($1, $2, $3, 'rating-request', $4, 'evil-before-the-rule', 'sneaky-before-the-rule', 'open', now())`,
        [id, name, email, message]
      )
    } finally {
      await client.end()
    }
    const Raw = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u
    const listed = await runCliBothWays(["contacts", "list"], env)
    assert.strictEqual(listed.code, 0, listed.stderr)
    assert.notMatch(listed.stdout, Raw, "no raw control, format or separator character")
    const line = listed.stdout.split("\n").find((l) => l.startsWith(id))
    assert.isDefined(line, "the row is one line")
    const row = line!.split(/ {2,}/)
    assert.deepStrictEqual(row.slice(5), [
      "Evil\\u{2029}Name\\u{202E}gnp.exe\\u{200B}",
      "sneaky\\u{2028}@example.com",
      "line one line\\u{2028}two\\u{200B}zero \\u{001B}[31mred\\u{009B} \\u{2066}iso\\u{2069} \\u{E0041}tag"
    ])
    const json = await runCli(["contacts", "list", "--json"], env)
    assert.strictEqual(json.code, 0, json.stderr)
    assert.notMatch(json.stdout, Raw)
    assert.include(json.stdout, "Evil\\u2029Name\\u202Egnp.exe\\u200B")
    const record = (JSON.parse(json.stdout) as Array<Record<string, unknown>>).find((r) => r.id === id)
    assert.deepStrictEqual(
      [record?.protocol_name, record?.contact_email, record?.message],
      [name, email, message],
      "the JSON parses back to the stored text"
    )
  }, 60_000)

  it("the server's output never holds a requester's address", async () => {
    // Let the server write the lines of the requests above.
    await new Promise((resolve) => setTimeout(resolve, 200))
    assert.include(serverOutput, "POST /api/v1/contacts", "the access log was captured")
    for (const email of [
      "limit@example.com",
      "alpha@example.com",
      "beta@example.com",
      "closer@example.com",
      "victim@example.com"
    ])
      assert.notInclude(serverOutput, email)
  })
})
