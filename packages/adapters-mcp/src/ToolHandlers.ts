/**
 * What each MCP tool does (RatingsTools.ts names and describes them): calls
 * of the typed client the HTTP contract generates (`HttpApiClient.makeWith`
 * over RatingsApi), so a tool reads exactly what the API serves the caller,
 * with the caller's tier, visibility and rate limit, and can never drift from
 * the API's shapes. request_coverage posts the coverage request (POST
 * /contacts) as its caller and answers the caller's own receipt, the same
 * whether or not the request repeats an open one. The API's refusals become
 * plain answers (ToolRefusals.ts): a 404 is "no rating found for <type>
 * <slug>", a 401 or 403 says which tier is needed and how to get a key.
 * get_rating without a type asks each type's detail route, as the caller.
 */
import { type EntityType, EntityTypes, PluralOf } from "@ratings/domain/model/EntityType"
import { ListParameters } from "@ratings/domain/access/ListFilter"
import type { Scorecard } from "@ratings/domain/model/Scorecard"
import { Effect } from "effect"
import type { HttpApiClient } from "effect/http-api"
import type { RatingsApi } from "@ratings/adapters-http/api/Api"
import { NotFoundError } from "@ratings/adapters-http/api/Errors"
import { MaxListLimit } from "@ratings/adapters-http/api/Parameters"
import {
  DefaultIncidents,
  DefaultListItems,
  type RatingsToolkit,
  type RatingsToolName,
  SearchMerged,
  SearchPerType
} from "./RatingsTools.ts"
import { formatQuantumChain, formatQuantumLeague } from "./QuantumText.ts"
import { invalidArguments } from "./ToolRefusals.ts"
import {
  type EntityLine,
  entityLines,
  formatBreakdown,
  formatIncidents,
  formatMethodology,
  formatRating,
  formatReceipt,
  notFound,
  severalTypes,
  type ToolAnswer
} from "./ToolText.ts"

/** The typed client of the whole API. */
export type RatingsClient = HttpApiClient.ForApi<typeof RatingsApi>

/** The client of one type's routes; every type's group has the same endpoints (EntitiesApi.ts). */
type EntityGroup = RatingsClient["protocols"]

const groupOf = (api: RatingsClient, type: EntityType): EntityGroup =>
  api[PluralOf[type] as "protocols"] as EntityGroup

type Args<Name extends RatingsToolName> = (typeof RatingsToolkit.tools)[Name]["parametersSchema"]["Type"]

/** A tool's work: an answer, or the API's refusal (which the caller turns into an answer). */
export type ToolRun<Name extends RatingsToolName> = (
  args: Args<Name>,
  api: RatingsClient
) => Effect.Effect<ToolAnswer, unknown>

const takes = (type: EntityType, parameter: "search" | "chain") => ListParameters[type].includes(parameter)

/** The entity's current rating: the newest published scorecard the caller may read, if any. */
const currentCard = (api: RatingsClient, type: EntityType, idOrSlug: string) =>
  Effect.map(groupOf(api, type).scorecards({ params: { id_or_slug: idOrSlug } }), (page) =>
    page.items.find((card) => card.status === "published")
  )

interface Listed {
  readonly id: string
  readonly name: string
  readonly slug: string
}

/**
 * Each entity with its current rating; one hidden between the two reads (a
 * 404 on its scorecards) is left out, as the API would now leave it out.
 */
const withRatings = (api: RatingsClient, entries: ReadonlyArray<{ type: EntityType; record: Listed }>) =>
  Effect.map(
    Effect.forEach(
      entries,
      ({ type, record }) =>
        currentCard(api, type, record.id).pipe(
          Effect.map((card): EntityLine | undefined => ({ type, record, card })),
          Effect.catchIf(
            (e) => e instanceof NotFoundError,
            () => Effect.succeed(undefined)
          )
        ),
      { concurrency: 4 }
    ),
    (lines) => lines.filter((line): line is EntityLine => line !== undefined)
  )

const listRatings: ToolRun<"list_ratings"> = (args, api) =>
  Effect.gen(function* () {
    const type = args.entity_type
    if (args.chain !== undefined && !takes(type, "chain"))
      return invalidArguments(
        `the chain filter applies to protocols, tokens, oracles, vaults and bridges, not to ${PluralOf[type]}`
      )
    const page = yield* groupOf(api, type).list({
      query: {
        limit: args.limit ?? DefaultListItems,
        ...(args.category === undefined ? {} : { category: [args.category.toLowerCase()] }),
        ...(args.chain === undefined ? {} : { chain: args.chain })
      }
    })
    const lines = yield* withRatings(
      api,
      page.items.map((record) => ({ type, record }))
    )
    const filters = [
      ...(args.category === undefined ? [] : [`category ${args.category.toLowerCase()}`]),
      ...(args.chain === undefined ? [] : [`chain ${args.chain}`])
    ]
    const heading =
      `${page.total} ${PluralOf[type]}${filters.length === 0 ? "" : ` (${filters.join(", ")})`}` +
      (lines.length < page.total ? `, showing ${lines.length}` : "")
    return entityLines(heading, lines, `No ${PluralOf[type]} match.`, {
      entity_type: type,
      total: page.total
    })
  })

/** Pages through a type that takes no search parameter, matching name and slug as the API's search does. */
const MaxScanned = 1_000

interface Found {
  readonly items: ReadonlyArray<Listed>
  readonly total: number
}

const searchWithoutParameter = (group: EntityGroup, needle: string) =>
  Effect.gen(function* () {
    const matches: Array<Listed> = []
    for (let skip = 0; skip < MaxScanned; skip += MaxListLimit) {
      const page = yield* group.list({ query: { skip, limit: MaxListLimit } })
      for (const record of page.items)
        if (record.name.toLowerCase().includes(needle) || record.slug.includes(needle)) matches.push(record)
      if (skip + page.items.length >= page.total) break
    }
    const found: Found = { items: matches, total: matches.length }
    return found
  })

const searchRatings: ToolRun<"search_ratings"> = (args, api) =>
  Effect.gen(function* () {
    const needle = args.query.trim().toLowerCase()
    if (needle === "") return invalidArguments("query: give part of a name or slug to look for")
    const perType = args.limit ?? SearchPerType
    const types: ReadonlyArray<EntityType> = args.entity_type === undefined ? EntityTypes : [args.entity_type]
    const found = yield* Effect.forEach(
      types,
      (type) =>
        Effect.map(
          takes(type, "search")
            ? (groupOf(api, type).list({ query: { search: needle, limit: perType } }) as Effect.Effect<
                Found,
                unknown
              >)
            : searchWithoutParameter(groupOf(api, type), needle),
          (page) => ({ type, page })
        ),
      { concurrency: 2 }
    )
    const total = found.reduce((sum, { page }) => sum + page.total, 0)
    const entries = found
      .flatMap(({ type, page }) => page.items.slice(0, perType).map((record) => ({ type, record })))
      .slice(0, args.limit ?? SearchMerged)
    const lines = yield* withRatings(api, entries)
    const heading =
      `${total} match${total === 1 ? "" : "es"} for "${args.query}"` +
      (args.entity_type === undefined ? "" : ` among ${PluralOf[args.entity_type]}`) +
      (lines.length < total ? `, showing ${lines.length}` : "")
    return entityLines(heading, lines, `Nothing rated matches "${args.query}".`, {
      query: args.query,
      total
    })
  })

const UuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Whether an identifier is `.` or `..`: in a URL path such a segment is a step
 * up the path, never the one segment it was meant to be (the typed client
 * refuses to build the URL), and no slug or id is one. Every other identifier
 * is encoded into one path segment by the typed client.
 */
const isDotSegment = (identifier: string) => identifier === "." || identifier === ".."

/** The entity of `type` with this slug or id, as the caller may see it; undefined on a 404. */
const recordOf = (api: RatingsClient, type: EntityType, identifier: string) =>
  groupOf(api, type)
    .detail({ params: { identifier }, query: {} })
    .pipe(
      Effect.map((record) => ({ type, record })),
      Effect.catchIf(
        (e) => e instanceof NotFoundError,
        () => Effect.succeed(undefined)
      )
    )

/** The rating of the one entity found, or which types have the identifier when several do. */
const ratingOf = (api: RatingsClient, identifier: string, type: EntityType | undefined) =>
  Effect.gen(function* () {
    if (isDotSegment(identifier)) return notFound(type, identifier)
    const found = yield* Effect.forEach(
      type === undefined ? EntityTypes : [type],
      (t) => recordOf(api, t, identifier),
      { concurrency: "unbounded" }
    )
    const matches = found.filter((match) => match !== undefined)
    const [match, ...others] = matches
    if (match === undefined) return notFound(type, identifier)
    if (others.length > 0) return severalTypes(identifier, matches)
    const card: Scorecard | undefined = yield* currentCard(api, match.type, match.record.id)
    return formatRating(match.type, match.record, card)
  }).pipe(
    // Hidden between the two reads: as the API would now answer.
    Effect.catchIf(
      (e) => e instanceof NotFoundError,
      () => Effect.succeed(notFound(type, identifier))
    )
  )

const getRating: ToolRun<"get_rating"> = (args, api) => ratingOf(api, args.identifier, args.entity_type)

const getRatingBreakdown: ToolRun<"get_rating_breakdown"> = (args, api) =>
  Effect.gen(function* () {
    const identifier = args.slug
    const group = groupOf(api, args.entity_type)
    // The route takes a slug: an id is looked up first (a caller below Pro then hears about the tier there).
    const slug = UuidPattern.test(identifier)
      ? (yield* group.detail({ params: { identifier }, query: {} })).slug
      : identifier
    const body = yield* group.domains({ params: { slug } })
    return formatBreakdown(args.entity_type, body)
  }).pipe(
    Effect.catchIf(
      (e) => e instanceof NotFoundError,
      () => Effect.succeed(notFound(args.entity_type, args.slug))
    )
  )

const getRecentIncidents: ToolRun<"get_recent_incidents"> = (args, api) =>
  Effect.map(
    api.incidents.feed({
      query: {
        limit: args.limit ?? DefaultIncidents,
        ...(args.slug === undefined ? {} : { slug: args.slug }),
        ...(args.since === undefined ? {} : { since: args.since }),
        ...(args.min_status === undefined ? {} : { min_status: args.min_status })
      }
    }),
    (page) => formatIncidents(page, args)
  )

const getMethodology: ToolRun<"get_methodology"> = (_args, api) =>
  Effect.map(api.methodology.methodology(), formatMethodology)

const quantumReadiness: ToolRun<"quantum_readiness"> = (args, api) => {
  const chain = args.chain
  if (chain === undefined) return Effect.map(api.quantum.leagueTable(), formatQuantumLeague)
  if (isDotSegment(chain))
    return Effect.succeed(
      invalidArguments(
        `chain: "${chain}" is not a chain slug (a slug is lower-case letters, digits and hyphens)`
      )
    )
  return Effect.map(api.quantum.chain({ params: { slug: chain } }), (body) => formatQuantumChain(chain, body))
}

const requestCoverage: ToolRun<"request_coverage"> = (args, api) =>
  Effect.map(
    api.contacts.create({
      payload: {
        protocol_name: args.entity_name,
        entity_type: args.entity_type,
        contact_email: args.contact_email,
        request_type: "rating-request",
        ...(args.note === undefined ? {} : { message: args.note })
      }
    }),
    formatReceipt
  )

/** Every tool's work, by name. */
export const ToolRuns: { readonly [Name in RatingsToolName]: ToolRun<Name> } = {
  list_ratings: listRatings,
  search_ratings: searchRatings,
  get_rating: getRating,
  get_rating_breakdown: getRatingBreakdown,
  get_recent_incidents: getRecentIncidents,
  get_methodology: getMethodology,
  quantum_readiness: quantumReadiness,
  request_coverage: requestCoverage
}
