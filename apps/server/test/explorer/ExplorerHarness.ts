/**
 * A real `ratings serve` for the explorer's server tests: a scratch Postgres
 * with the demo data, a protocol with a hostile name, two hidden protocols
 * (private, and a draft) and a demo protocol moved back to draft, keys of
 * the three tiers, and plain HTTP helpers (anonymous requests come from a
 * fresh forwarded address each, behind TRUST_PROXY=1, so that a walk of
 * every page stays within the anonymous request rate).
 */
import type { ChildProcess } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { DemoDataDir } from "@ratings/demo-data"
import { Effect } from "effect"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "../CliHarness.ts"

export const HostileName = `<script>alert("pwn")</script> Finance`

/** Hidden protocols: their names and slugs must appear on no page. */
export const Hidden = [
  { slug: "zq-hidden-private", name: "Zqhidden Private Protocol" },
  { slug: "zq-hidden-draft", name: "Zqhidden Draft Protocol" },
  { slug: "dolomite", name: "Dolomite" }
] as const

const extraEntities = () => {
  const demo = JSON.parse(readFileSync(join(DemoDataDir, "02-entities.json"), "utf8"))
  const base = demo.entities.find((e: { record: { slug: string } }) => e.record.slug === "aave-v3").record
  const entity = (slug: string, name: string, fields: Record<string, unknown>) => ({
    entity_type: "protocol",
    record: { ...base, id: randomUUID(), slug, name, external_ids: {}, ...fields }
  })
  return {
    format: demo.format,
    entities: [
      entity("hostile-finance", HostileName, {}),
      entity(Hidden[0].slug, Hidden[0].name, { is_private: true }),
      entity(Hidden[1].slug, Hidden[1].name, { status: "draft" })
    ]
  }
}

export interface Explorer {
  readonly base: string
  /** `ratings <args>` against the server's database. */
  readonly cli: (args: ReadonlyArray<string>) => Promise<string>
  readonly keys: { readonly free: string; readonly pro: string; readonly enterprise: string }
  readonly stop: () => Promise<void>
}

const ok = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const result = await runCli(args, env)
  if (result.code !== 0) throw new Error(`ratings ${args.join(" ")}: ${result.stderr}`)
  return result.stdout.trim()
}

/** The server, started over a fresh database. */
export const startExplorer = async (): Promise<Explorer> => {
  const db = await scratchDatabase()
  const env = { DATABASE_URL: db.url }
  await ok(["import", DemoDataDir], env)
  const dir = mkdtempSync(join(tmpdir(), "ratings-explorer-"))
  writeFileSync(join(dir, "extra.json"), JSON.stringify(extraEntities()))
  await ok(["import", dir], env)
  await ok(["status", "protocol", "dolomite", "draft"], env)
  const key = (tier: string) => ok(["keys", "create", "--tier", tier, "--name", `explorer-${tier}`], env)
  const keys = { free: await key("free"), pro: await key("pro"), enterprise: await key("enterprise") }
  const port = await Effect.runPromise(freePort)
  const child: ChildProcess = startCli(["serve"], { ...env, PORT: String(port), TRUST_PROXY: "1" })
  await waitForOutput(child, /Listening on/, 60_000)
  return {
    base: `http://127.0.0.1:${port}`,
    cli: (args) => ok(args, env),
    keys,
    stop: async () => {
      child.kill("SIGTERM")
      await exited(child)
      await db.drop()
    }
  }
}

let address = 0

/** A fresh client address for an anonymous request (its own request-rate allowance). */
export const freshAddress = (): string => {
  address++
  return `10.${(address >> 16) & 255}.${(address >> 8) & 255}.${address & 255}`
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

/** A GET as the caller: anonymous, or a key in the cookie (`cookie`) or the Authorization header (`bearer`). */
export const get = async (
  base: string,
  path: string,
  as: { readonly cookie?: string; readonly bearer?: string } = {}
): Promise<Answer> => {
  const headers: Record<string, string> = { "x-forwarded-for": freshAddress() }
  if (as.cookie !== undefined) headers.cookie = `ratings_key=${as.cookie}`
  if (as.bearer !== undefined) headers.authorization = `Bearer ${as.bearer}`
  const response = await fetch(`${base}${path}`, { headers, redirect: "manual" })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

/** The JSON of an API read. */
// biome-ignore lint/suspicious/noExplicitAny: API bodies are probed field by field
export const api = async (base: string, path: string, bearer?: string): Promise<any> => {
  const answer = await get(base, `/api/v1${path}`, bearer === undefined ? {} : { bearer })
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.text}`)
  return JSON.parse(answer.text)
}

const decode = (text: string) =>
  text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")

/** A page's figure (`data-figure` element's text), tags stripped. */
export const figureOf = (html: string, name: string): string | undefined => {
  const at = new RegExp(`data-figure="${name}"[^>]*>(.*?)</(dd|p|span|dl)>`, "s").exec(html)
  return at === undefined || at === null ? undefined : decode(at[1]!.replace(/<[^>]+>/g, "")).trim()
}

/** The domain bars of a page: domain -> [score, weight]. */
export const barsOf = (html: string): Record<string, [number, number | undefined]> => {
  const bars: Record<string, [number, number | undefined]> = {}
  for (const m of html.matchAll(/data-domain="([^"]+)" data-score="([^"]+)"( data-weight="([^"]+)")?/g))
    bars[m[1]!] = [Number(m[2]), m[4] === undefined ? undefined : Number(m[4])]
  return bars
}

/** The history points of a page: [version, composite, grade]. */
export const pointsOf = (html: string): Array<[number, number, string]> =>
  [...html.matchAll(/data-version="(\d+)" data-composite="([^"]+)" data-grade="([^"]*)"/g)].map((m) => [
    Number(m[1]),
    Number(m[2]),
    m[3]!
  ])

/** The entity links of a page: `/{plural}/{slug}`. */
export const entityLinks = (html: string): Array<string> => [
  ...new Set(
    [
      ...html.matchAll(/href="(\/(protocols|chains|tokens|oracles|vaults|organisations|bridges)\/[^"?#]+)"/g)
    ].map((m) => m[1]!)
  )
]
