/**
 * The read benchmark's explorer rows: the list page and the entity page as
 * an anonymous visitor reads them (HTML, from the response cache), on our
 * server with the cache and on the same ceiling as the API rows (node:http
 * writing a body of the page's size). Each row's samples must answer 200
 * HTML, the same bytes twice (a cached answer); its targets are the issue's
 * p99 under 50 ms at 32 connections and ours at least the share of the
 * ceiling the API's list is held to. Used by read.bench.ts.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"

/** One measured run of one server (read.bench.ts Cell). */
export interface ExplorerCell {
  readonly rps: number
  readonly p99: number
  readonly errors: number
  readonly non2xx: number
}

/** What the explorer rows rotate over: the public, rated protocols of the dataset. */
export interface ExplorerDataset {
  readonly protocols: ReadonlyArray<{
    readonly slug: string
    readonly category: string | undefined
    readonly chain: string | undefined
  }>
}

export interface ExplorerRoute {
  readonly name: string
  readonly paths: (d: ExplorerDataset) => ReadonlyArray<string>
}

const unique = (xs: ReadonlyArray<string>) => [...new Set(xs)]

export const ExplorerRoutes: ReadonlyArray<ExplorerRoute> = [
  {
    name: "explorer-list",
    paths: (d) =>
      unique([
        "/protocols",
        "/protocols?sort=name",
        "/protocols?sort=composite&order=asc",
        ...d.protocols.flatMap((p) =>
          p.category === undefined ? [] : [`/protocols?category=${p.category}`]
        ),
        ...d.protocols.flatMap((p) => (p.chain === undefined ? [] : [`/protocols?chain=${p.chain}`]))
      ])
  },
  { name: "explorer-entity", paths: (d) => d.protocols.map((p) => `/protocols/${p.slug}`) }
]

/** The bound on an explorer page's p99 under load, and the connections it is measured at. */
export const ExplorerP99Ms = 50
export const ExplorerConnections = 32
/** Ours over the ceiling at the page's size: the share the API's list of 50 is held to. */
export const ExplorerCeilingFloor = 60

export interface ExplorerRow {
  readonly route: string
  readonly requests: number
  readonly bytes: number
  readonly connections: number
  readonly ours: ExplorerCell
  readonly ceiling: ExplorerCell
}

export interface ExplorerServer {
  readonly name: string
  readonly baseUrl: string
}

export interface ExplorerDeps {
  readonly dataset: ExplorerDataset
  readonly ours: ExplorerServer
  readonly ceiling: ExplorerServer
  readonly work: string
  readonly connections: number
  readonly warmup: number
  readonly duration: number
  /** One load of `server` over the paths written to `file` (one `path\t` line each). */
  readonly load: (
    server: ExplorerServer,
    file: string,
    paths: ReadonlyArray<string>,
    connections: number,
    seconds: number
  ) => Promise<ExplorerCell>
  readonly broken: Array<string>
  readonly log: (line: string) => void
}

/** Every distinct page once, a few at a time, so that the cached server's cell is the cache's steady state. */
const prime = async (baseUrl: string, paths: ReadonlyArray<string>) => {
  let next = 0
  const worker = async () => {
    while (next < paths.length) {
      const path = paths[next++]!
      const r = await fetch(`${baseUrl}${path}`)
      await r.arrayBuffer()
      if (r.status !== 200) throw new Error(`priming ${path}: ${r.status}`)
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
}

/** Samples of a row: 200, HTML, the same bytes twice; their mean size. */
const checkPages = async (route: string, baseUrl: string, paths: ReadonlyArray<string>): Promise<number> => {
  const samples = unique([paths[0]!, paths[Math.floor(paths.length / 2)]!, paths[paths.length - 1]!])
  let bytes = 0
  for (const path of samples) {
    const [a, b] = await Promise.all([0, 1].map(() => fetch(`${baseUrl}${path}`)))
    const [ta, tb] = await Promise.all([a!.text(), b!.text()])
    if (a!.status !== 200) throw new Error(`${route} (${path}) answers ${a!.status}`)
    if (!String(a!.headers.get("content-type")).startsWith("text/html"))
      throw new Error(`${route} (${path}) is not HTML: ${a!.headers.get("content-type")}`)
    if (ta !== tb) throw new Error(`${route} (${path}) answers differently twice in a row`)
    bytes += Buffer.byteLength(ta)
  }
  return Math.round(bytes / samples.length)
}

/** The explorer rows, each measured on ours (cache, primed) and on the ceiling at its page size. */
export const explorerRows = async (deps: ExplorerDeps): Promise<ReadonlyArray<ExplorerRow>> => {
  const rows: Array<ExplorerRow> = []
  const connections = Math.min(ExplorerConnections, deps.connections)
  for (const route of ExplorerRoutes) {
    const paths = route.paths(deps.dataset)
    if (paths.length === 0) throw new Error(`${route.name}: the dataset gives no page`)
    const bytes = await checkPages(route.name, deps.ours.baseUrl, paths)
    const file = join(deps.work, `${route.name}-anonymous.txt`)
    writeFileSync(file, paths.map((p) => `${p}\t`).join("\n") + "\n", { mode: 0o600 })
    const measure = async (server: ExplorerServer) => {
      if (deps.warmup > 0) await deps.load(server, file, paths, connections, deps.warmup)
      const cell = await deps.load(server, file, paths, connections, deps.duration)
      if (cell.errors + cell.non2xx > 0)
        deps.broken.push(
          `${route.name} as anonymous on ${server.name}: ${cell.errors} socket errors, ${cell.non2xx} non-2xx`
        )
      return cell
    }
    const sized = await fetch(`${deps.ceiling.baseUrl}/__body?bytes=${bytes}`)
    if (sized.status !== 204) throw new Error(`the ceiling refused a body of ${bytes} bytes`)
    const ceiling = await measure(deps.ceiling)
    await prime(deps.ours.baseUrl, paths)
    const ours = await measure(deps.ours)
    rows.push({ route: route.name, requests: paths.length, bytes, connections, ours, ceiling })
    deps.log(
      `  ${route.name} as anonymous: ours ${Math.round(ours.rps)}, ceiling ${Math.round(ceiling.rps)} req/s`
    )
  }
  return rows
}

/** The explorer rows' targets, in read.bench.ts's Target shape ("ms" targets are upper bounds). */
export const explorerTargets = (rows: ReadonlyArray<ExplorerRow>) =>
  rows.flatMap((r) => {
    const share = (100 * r.ours.rps) / r.ceiling.rps
    return [
      {
        name: `${r.route} as anonymous: ours / ceiling`,
        value: share,
        min: ExplorerCeilingFloor,
        unit: "%" as const,
        pass: share >= ExplorerCeilingFloor
      },
      {
        name: `${r.route} as anonymous: p99 at ${r.connections} connections`,
        value: r.ours.p99,
        min: ExplorerP99Ms,
        unit: "ms" as const,
        pass: r.ours.p99 < ExplorerP99Ms
      }
    ]
  })

const fmt = (n: number) => Math.round(n).toLocaleString("en-US")
const cellText = (c: ExplorerCell) => `${fmt(c.rps)} (${Math.round(c.p99)})`

/** The explorer rows as a Markdown table. */
export const explorerTable = (rows: ReadonlyArray<ExplorerRow>): ReadonlyArray<string> =>
  rows.length === 0
    ? []
    : [
        "explorer pages, anonymous, from the response cache: req/s (p99 ms)",
        "",
        "| page | requests | bytes | connections | ours, cache | ceiling | ours / ceiling | errors |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ...rows.map(
          (r) =>
            `| ${r.route} | ${fmt(r.requests)} | ${fmt(r.bytes)} | ${r.connections} | ${cellText(r.ours)} | ` +
            `${cellText(r.ceiling)} | ${Math.round((100 * r.ours.rps) / r.ceiling.rps)} % | ` +
            `${r.ours.errors + r.ours.non2xx + r.ceiling.errors + r.ceiling.non2xx} |`
        ),
        ""
      ]
