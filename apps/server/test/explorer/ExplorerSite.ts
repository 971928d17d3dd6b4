/**
 * What the explorer should show each caller, read from the API as that
 * caller: the entities it lists (every page of every type), the pages of the
 * explorer to visit, and what is hidden from it: every demo entity the API
 * neither lists nor resolves for it, with the figures an admin reads of it.
 * The explorer's leak walk holds the HTML against the hidden set; its page
 * tests visit the pages listed here.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { DemoDataDir } from "@ratings/demo-data"
import { type EntityType, EntityTypes, PluralOf } from "@ratings/domain/model/EntityType"
import { api, type CallerName, type ExplorerServer } from "./ExplorerBrowser.ts"

export interface EntityRef {
  readonly type: EntityType
  readonly id: string
  readonly slug: string
  readonly name: string
}

export const entityPath = (e: { readonly type: EntityType; readonly slug: string }) =>
  `/${PluralOf[e.type]}/${e.slug}`

export const listPath = (type: EntityType) => `/${PluralOf[type]}`

/** The pages that are not a list or an entity. */
export const FixedPages = ["/", "/incidents", "/methodology", "/quantum", "/webhooks"] as const

/** Every entity of `type` the API lists to `caller`, in the API's order (every page of 100). */
export const listed = async (
  server: ExplorerServer,
  caller: CallerName | "admin",
  type: EntityType,
  query = ""
): Promise<ReadonlyArray<EntityRef>> => {
  const all: Array<EntityRef> = []
  for (let skip = 0; ; skip += 100) {
    const r = await api(server, caller, `/${PluralOf[type]}?limit=100&skip=${skip}${query}`)
    if (r.status !== 200) throw new Error(`list ${type} as ${caller}: ${r.status}`)
    for (const item of r.body.items) all.push({ type, id: item.id, slug: item.slug, name: item.name })
    if (r.body.items.length < 100 || all.length >= r.body.total) return all
  }
}

/** The demo's entities, as its entity file has them. */
export const demoEntities = (): ReadonlyArray<EntityRef> => {
  const file = JSON.parse(readFileSync(join(DemoDataDir, "02-entities.json"), "utf8")) as {
    readonly entities: ReadonlyArray<{
      readonly entity_type: EntityType
      readonly record: { readonly id: string; readonly slug: string; readonly name: string }
    }>
  }
  return file.entities.map((e) => ({
    type: e.entity_type,
    id: e.record.id,
    slug: e.record.slug,
    name: e.record.name
  }))
}

export interface HiddenEntity extends EntityRef {
  /** Its composite figures with a fraction, as an admin reads them and pages print them (whole ones are too common to tell). */
  readonly figures: ReadonlyArray<string>
}

export interface CallerView {
  readonly caller: CallerName
  /** Everything the API lists to the caller, per type. */
  readonly visible: ReadonlyArray<EntityRef>
  /** The demo's entities the API neither lists nor resolves for the caller. */
  readonly hidden: ReadonlyArray<HiddenEntity>
}

const fractional = (n: unknown): ReadonlyArray<string> =>
  typeof n === "number" && !Number.isInteger(n) ? [String(n)] : []

/** The fractional figures of an entity's scorecards as `caller` reads them (composite and intrinsic). */
export const scorecardFigures = async (
  server: ExplorerServer,
  caller: CallerName | "admin",
  e: EntityRef
): Promise<ReadonlyArray<string>> => {
  const r = await api(server, caller, `${entityPath(e)}/scorecards?limit=100`)
  if (r.status !== 200) return []
  return r.body.items.flatMap((card: { composite_score?: unknown; intrinsic_composite_score?: unknown }) => [
    ...fractional(card.composite_score),
    ...fractional(card.intrinsic_composite_score)
  ])
}

/** What `caller` may and may not see, by the API. */
export const viewOf = async (server: ExplorerServer, caller: CallerName): Promise<CallerView> => {
  const visible = (await Promise.all(EntityTypes.map((t) => listed(server, caller, t)))).flat()
  const listedIds = new Set(visible.map((e) => e.id))
  const hidden: Array<HiddenEntity> = []
  for (const e of demoEntities()) {
    if (listedIds.has(e.id)) continue
    const detail = await api(server, caller, entityPath(e))
    if (detail.status === 200) continue
    hidden.push({ ...e, figures: await scorecardFigures(server, "admin", e) })
  }
  return { caller, visible, hidden }
}

/** One entity of each type the caller sees (the first the API lists), for the page tests. */
export const onePerType = (view: CallerView): ReadonlyArray<EntityRef> =>
  EntityTypes.flatMap((t) => view.visible.find((e) => e.type === t) ?? [])

/** The explorer pages a caller's page tests visit: the fixed pages, each list, one entity of each type. */
export const pagesFor = (view: CallerView): ReadonlyArray<string> => [
  ...FixedPages,
  ...EntityTypes.map(listPath),
  ...onePerType(view).map(entityPath)
]
