/**
 * The explorer's browser harness: a real `ratings serve` on the demo data (a
 * scratch database, the demo imported, Free, Pro and Enterprise keys and a
 * development admin token), headless Chromium at 360x740 and 1440x900, a
 * caller signed in through the page's own form (the `ratings_key` cookie),
 * every request that would leave the server refused and recorded, axe-core's
 * serious and critical violations, horizontal scrolling, a page's compressed
 * weight, and screenshots written outside the repository (`ScreenshotDir`).
 * The test's own reads come from loopback addresses of their own and keys of
 * their own, so that they never spend the browser's rate-limit allowance.
 */
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs"
import { request } from "node:http"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { guardOutside, launchChromium } from "@ratings/adapters-http/test/Browser"
import { freePort } from "@ratings/adapters-sql/EmbeddedPostgres"
import { DemoDataDir } from "@ratings/demo-data"
import { Effect } from "effect"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { exited, runCli, scratchDatabase, startCli, waitForOutput } from "../CliHarness.ts"

/** Where the test run writes its screenshots (never inside the repository). */
export const ScreenshotDir = join(tmpdir(), "ratings-explorer-screenshots")

export const Viewports = [
  { name: "narrow", width: 360, height: 740 },
  { name: "wide", width: 1440, height: 900 }
] as const
export type Viewport = (typeof Viewports)[number]

export const Callers = ["anonymous", "free", "pro", "enterprise"] as const
export type CallerName = (typeof Callers)[number]

/** The most a page may weigh, compressed, with its style sheet and script. */
export const MaxPageBytes = 150 * 1024

export interface ExplorerServer {
  readonly base: string
  readonly env: Record<string, string>
  /** The key of each keyed caller (none for anonymous), for its browser session. */
  readonly keys: { readonly [C in Exclude<CallerName, "anonymous">]: string }
  /** Another key of each tier, for the test's own API reads as that caller. */
  readonly apiKeys: { readonly [C in Exclude<CallerName, "anonymous">]: string }
  /** An admin bearer token (`ratings dev token`): what is hidden is read through it. */
  readonly adminToken: string
  readonly dispose: () => Promise<void>
}

const check = (what: string, r: { code: number | null; stdout: string; stderr: string }) => {
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}):\n${r.stdout}${r.stderr}`)
  return r.stdout.trim()
}

/**
 * A `ratings serve` on a fresh database holding the demo data (and, with
 * `generated`, that many entities of the deterministic scale dataset beside
 * it, for lists longer than a page), once it listens; `dispose` stops it and
 * drops the database.
 */
export const startExplorerServer = async (
  options: { readonly generated?: number } = {}
): Promise<ExplorerServer> => {
  const db = await scratchDatabase()
  const port = await Effect.runPromise(freePort)
  const env: Record<string, string> = {
    DATABASE_URL: db.url,
    RATINGS_DATA_DIR: mkdtempSync(join(tmpdir(), "ratings-explorer-")),
    PORT: String(port),
    HOST: "127.0.0.1",
    NODE_ENV: "test"
  }
  check("ratings import (demo)", await runCli(["import", DemoDataDir], env))
  if (options.generated !== undefined) {
    const out = join(env.RATINGS_DATA_DIR!, "generated")
    const n = String(options.generated)
    check(
      "demo generate",
      await runCli(["demo", "generate", "--entities", n, "--seed", "explorer", "--out", out], env)
    )
    check("ratings import (generated)", await runCli(["import", out], env))
  }
  const key = async (tier: string) =>
    check(
      `keys create ${tier}`,
      await runCli(["keys", "create", "--tier", tier, "--name", `explorer ${tier}`], env)
    )
  const keysFor = async () => ({
    free: await key("free"),
    pro: await key("pro"),
    enterprise: await key("enterprise")
  })
  const keys = await keysFor()
  const apiKeys = await keysFor()
  // The dev identity provider's key pair must exist before the server starts, so that it trusts it.
  const adminToken = check("dev token", await runCli(["dev", "token"], env))
  const server = startCli(["serve", "--no-demo"], env)
  try {
    await waitForOutput(server, /listening on/i, 90_000)
  } catch (e) {
    server.kill("SIGKILL")
    await db.drop()
    throw e
  }
  return {
    base: `http://127.0.0.1:${port}`,
    env,
    keys,
    apiKeys,
    adminToken,
    dispose: async () => {
      if (server.exitCode === null && server.signalCode === null) server.kill("SIGTERM")
      await exited(server)
      await db.drop()
    }
  }
}

/** The authorization header of a caller (none for anonymous). */
export const authorizationOf = (
  server: ExplorerServer,
  caller: CallerName | "admin"
): Record<string, string> =>
  caller === "anonymous"
    ? {}
    : { authorization: `Bearer ${caller === "admin" ? server.adminToken : server.apiKeys[caller]}` }

let nextAddress = 0

/** A loopback address not used before in this run (127.0.x.y): each read counts against a fresh allowance. */
const freshLoopback = (): string => {
  const n = nextAddress++
  return `127.0.${1 + (Math.floor(n / 250) % 250)}.${1 + (n % 250)}`
}

export interface Got {
  readonly status: number
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  /** The body as sent (compressed when the server compressed it). */
  readonly raw: Buffer
  readonly text: string
}

/** One GET from a fresh loopback address (node:http, no decompression). */
export const httpGet = (url: string, headers: Record<string, string> = {}): Promise<Got> =>
  new Promise((resolve, reject) => {
    const req = request(url, { headers, localAddress: freshLoopback() }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (c: Buffer) => chunks.push(c))
      res.on("end", () => {
        const raw = Buffer.concat(chunks)
        resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, text: raw.toString("utf8") })
      })
      res.on("error", reject)
    })
    req.on("error", reject)
    req.end()
  })

/** An API read as a caller: its status and JSON body (undefined when not JSON). */
export const api = async (
  server: ExplorerServer,
  caller: CallerName | "admin",
  path: string
  // biome-ignore lint/suspicious/noExplicitAny: answers are probed field by field
): Promise<{ readonly status: number; readonly body: any }> => {
  const r = await httpGet(`${server.base}/api/v1${path}`, {
    accept: "application/json",
    ...authorizationOf(server, caller)
  })
  let body: unknown
  try {
    body = JSON.parse(r.text)
  } catch {
    body = undefined
  }
  return { status: r.status, body }
}

export const launchExplorerBrowser = (): Promise<Browser> => launchChromium()

/** Signs in on the page's own form with `key`; resolves once the signed-in page has loaded. */
export const signIn = async (page: Page, base: string, key: string): Promise<void> => {
  await page.goto(`${base}/`)
  const form = page.locator('form[action="/sign-in"]').first()
  await form.locator('input[name="key"]').fill(key)
  await Promise.all([
    page.waitForURL((url) => url.pathname !== "/sign-in", { waitUntil: "load" }),
    form.locator('[type="submit"]').click()
  ])
}

export interface CallerPage {
  readonly context: BrowserContext
  readonly page: Page
  /** Every request of the context that would have left the server (refused). */
  readonly outside: ReadonlyArray<string>
  /** Page script errors met so far. */
  readonly errors: ReadonlyArray<string>
}

/** A context at `viewport` for `caller` (signed in through the form unless anonymous), guarded. */
export const openAs = async (
  browser: Browser,
  server: ExplorerServer,
  caller: CallerName,
  viewport: Viewport
): Promise<CallerPage> => {
  const context = await browser.newContext({ viewport: { width: viewport.width, height: viewport.height } })
  const outside = await guardOutside(context, new URL(server.base).origin)
  const page = await context.newPage()
  const errors: Array<string> = []
  page.on("pageerror", (e) => errors.push(e.message))
  if (caller !== "anonymous") {
    await signIn(page, server.base, server.keys[caller])
    const cookies = await context.cookies(server.base)
    const cookie = cookies.find((c) => c.name === "ratings_key")
    if (cookie === undefined) throw new Error(`signing in as ${caller} set no ratings_key cookie`)
  }
  return { context, page, outside, errors }
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

export interface AxeViolation {
  readonly id: string
  readonly impact: string
  readonly help: string
  readonly targets: ReadonlyArray<string>
}

/**
 * axe-core's serious and critical violations on the page as it is. axe is
 * evaluated through the browser's debugging protocol, which the page's
 * Content-Security-Policy does not govern, so the page keeps its own policy.
 */
export const seriousViolations = async (page: Page): Promise<ReadonlyArray<AxeViolation>> => {
  await page.evaluate(`${axeSource}\n;void 0`)
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(" "))
    })))`
  )) as ReadonlyArray<AxeViolation>
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
}

/** Whether the page scrolls sideways (its document wider than the viewport). */
export const scrollsSideways = async (page: Page): Promise<boolean> =>
  (await page.evaluate(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth"
  )) as boolean

/** Writes a full-page screenshot to ScreenshotDir; answers its path. */
export const shoot = async (page: Page, name: string): Promise<string> => {
  mkdirSync(ScreenshotDir, { recursive: true })
  const path = join(ScreenshotDir, `${name.replace(/[^a-z0-9-]+/gi, "_")}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}

/** The bytes of a GET as sent to a client accepting gzip (gzipped here when the server sends it plain). */
const wireBytes = async (url: string, headers: Record<string, string>): Promise<number> => {
  const r = await httpGet(url, { "accept-encoding": "br, gzip", ...headers })
  const encoding = r.headers["content-encoding"]
  return encoding !== undefined && encoding !== "identity" ? r.raw.length : gzipSync(r.raw).length
}

/**
 * What a page costs compressed: its HTML and each style sheet, script and
 * image of this origin that it names, as the server sends them to a client
 * accepting gzip (gzipped here at the default level when the server sends
 * them plain). `cookie` signs the request in.
 */
export const compressedWeight = async (page: Page, url: string, cookie?: string): Promise<number> => {
  const headers: Record<string, string> = cookie === undefined ? {} : { cookie }
  const html = await wireBytes(url, headers)
  const origin = new URL(url).origin
  const assets = (await page.evaluate(
    `[...document.querySelectorAll("link[rel=stylesheet][href], script[src], img[src]")]
      .map((e) => e.getAttribute("href") ?? e.getAttribute("src"))`
  )) as ReadonlyArray<string>
  let total = html
  for (const asset of new Set(assets.map((a) => new URL(a, url).href))) {
    if (!asset.startsWith(origin)) continue
    total += await wireBytes(asset, headers)
  }
  return total
}

/** The `cookie` header of a context's session on the server (empty when signed out). */
export const cookieHeader = async (context: BrowserContext, base: string): Promise<string | undefined> => {
  const cookies = await context.cookies(base)
  return cookies.length === 0 ? undefined : cookies.map((c) => `${c.name}=${c.value}`).join("; ")
}
