/**
 * The leak walk extended to HTML: for each caller (anonymous, and Free, Pro
 * and Enterprise signed in by the form's POST), every explorer page and link
 * reachable from the home page and the nav (bounded) is read, and no entity
 * the API hides from that caller (ExplorerSite.ts viewOf: the demo's drafts,
 * entities in scoring or approved, inactive and private ones) appears in any
 * of them: not its name, slug or id, in text, links or attributes, nor its
 * composite figures. A token the API itself shows that caller (a visible
 * entity's chain, say) is not held against the page. A hidden entity's own
 * page answers 404 without its name.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { EntityTypes, PluralOf } from "@ratings/domain/model/EntityType"
import {
  api,
  Callers,
  type CallerName,
  type ExplorerServer,
  httpGet,
  startExplorerServer
} from "./ExplorerBrowser.ts"
import { type CallerView, entityPath, FixedPages, listPath, viewOf } from "./ExplorerSite.ts"

/** The most pages read per caller. */
const MaxPages = 600

/** Paths the walk does not follow: not explorer pages. */
const NotExplorer = /^\/(api\/|docs|openapi\.json|mcp|assets\/|sign-out|sign-in|health|metrics)/

let server: ExplorerServer

beforeAll(async () => {
  server = await startExplorerServer()
}, 180_000)

afterAll(() => server?.dispose(), 60_000)

/** The session cookie of `caller` after signing in by the form's POST (none for anonymous). */
export const sessionCookie = async (
  server: ExplorerServer,
  caller: CallerName
): Promise<string | undefined> => {
  if (caller === "anonymous") return undefined
  const r = await fetch(`${server.base}/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: server.base },
    body: new URLSearchParams({ key: server.keys[caller] }).toString()
  })
  const cookie = r.headers.getSetCookie().find((c) => c.startsWith("ratings_key="))
  if (cookie === undefined) throw new Error(`sign-in as ${caller}: ${r.status}, no ratings_key cookie`)
  return cookie.split(";")[0]
}

const decodeEntities = (s: string) =>
  s
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")

/** The same-origin explorer paths a page links to. */
const linksOf = (html: string, base: string): ReadonlyArray<string> =>
  [...html.matchAll(/\shref="([^"]*)"/g)].flatMap((m) => {
    const url = new URL(decodeEntities(m[1]!), `${base}/`)
    if (url.origin !== base || NotExplorer.test(url.pathname)) return []
    return [`${url.pathname}${url.search}`]
  })

/** Everything the API shows the caller, as text: what a page may repeat without leaking. */
const apiCorpus = async (view: CallerView): Promise<string> => {
  const parts: Array<unknown> = []
  for (const t of EntityTypes) parts.push((await api(server, view.caller, `/${PluralOf[t]}?limit=200`)).body)
  for (const e of view.visible) {
    parts.push((await api(server, view.caller, entityPath(e))).body)
    parts.push((await api(server, view.caller, `${entityPath(e)}/scorecards?limit=100`)).body)
  }
  for (const path of ["/incidents?limit=200", "/quantum-readiness", "/methodology"])
    parts.push((await api(server, view.caller, path)).body)
  return JSON.stringify(parts)
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const standalone = (token: string) =>
  new RegExp(`(?<![A-Za-z0-9_.-])${escapeRegex(token)}(?![A-Za-z0-9_-]|\\.\\d)`)

interface Token {
  readonly of: string
  readonly what: string
  readonly pattern: RegExp
}

/** The tokens of hidden entities to look for, less those the API shows the caller anyway. */
const hiddenTokens = (view: CallerView, corpus: string): { tokens: ReadonlyArray<Token>; shown: number } => {
  const tokens: Array<Token> = []
  let shown = 0
  for (const e of view.hidden) {
    const candidates = [
      { what: "name", text: e.name, inCorpus: corpus.includes(JSON.stringify(e.name).slice(1, -1)) },
      { what: "slug", text: e.slug, inCorpus: standalone(e.slug).test(corpus) },
      { what: "id", text: e.id, inCorpus: corpus.includes(e.id) },
      ...e.figures.map((f) => ({ what: "figure", text: f, inCorpus: standalone(f).test(corpus) }))
    ]
    for (const c of candidates) {
      if (c.inCorpus) shown++
      else tokens.push({ of: `${e.type} ${e.slug}`, what: c.what, pattern: standalone(c.text) })
    }
  }
  return { tokens, shown }
}

const walk = async (caller: CallerName) => {
  const view = await viewOf(server, caller)
  assert.isAbove(view.hidden.length, 0, "the demo hides entities from every caller")
  const cookie = await sessionCookie(server, caller)
  const headers: Record<string, string> = cookie === undefined ? {} : { cookie }
  const { tokens, shown } = hiddenTokens(view, await apiCorpus(view))
  const queue = [...FixedPages, ...EntityTypes.map(listPath)]
  const seen = new Set(queue)
  const leaks: Array<string> = []
  let read = 0
  while (queue.length > 0 && read < MaxPages) {
    const path = queue.shift()!
    const r = await httpGet(`${server.base}${path}`, headers)
    read++
    if (r.status >= 500 || r.status === 429) leaks.push(`${path}: status ${r.status}`)
    if (!String(r.headers["content-type"]).startsWith("text/html")) continue
    const html = r.text
    for (const t of tokens) if (t.pattern.test(html)) leaks.push(`${path}: ${t.what} of hidden ${t.of}`)
    for (const link of linksOf(html, server.base))
      if (!seen.has(link)) {
        seen.add(link)
        queue.push(link)
      }
  }
  console.log(
    `leak walk as ${caller}: ${read} pages read (${seen.size} links seen), ${view.hidden.length} hidden entities, ` +
      `${tokens.length} tokens looked for, ${shown} left out as the API shows them`
  )
  const unreached = view.visible.filter((e) => !seen.has(entityPath(e))).map(entityPath)
  assert.deepStrictEqual(unreached, [], `${caller}: every entity it may see is linked from the pages`)
  assert.deepStrictEqual(leaks, [], `${caller}: nothing hidden on any page:\n${leaks.join("\n")}`)
  for (const e of view.hidden) {
    const r = await httpGet(`${server.base}${entityPath(e)}`, headers)
    assert.strictEqual(r.status, 404, `${caller}: the page of hidden ${e.type} ${e.slug}`)
    assert.notInclude(r.text, e.name, `${caller}: the 404 of ${e.slug} does not name it`)
  }
}

describe("explorer leak walk", () => {
  for (const caller of Callers)
    it(`as ${caller}: no hidden entity's name, slug, id or figure on any page or link`, async () => {
      await walk(caller)
    }, 300_000)
})
