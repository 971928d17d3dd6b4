/**
 * Handlers of the per-entity read routes of the seven types. Each is a few
 * lines: the contract decoded the request, the domain's RatingsReader applies
 * the tier and visibility rules (the `Projection` read when the handlers are
 * built), and the result (or its error, mapped once in ErrorMapping) goes
 * back. Every route goes through the ResponseCache when the server has one,
 * keyed by the normalised parameters the reader receives, so two requests
 * with the same key get the same answer for the same projection class. The
 * caller is CurrentCaller, which the authentication middleware provides; a
 * request without it is anonymous.
 */
import type { EntityRecordOf } from "@ratings/domain/model/Entity"
import { Projection, type TierProjection } from "@ratings/domain/access/Projection"
import { type Caller, Caller as Callers, callerKind } from "@ratings/domain/model/Caller"
import { type EntityType, PluralOf } from "@ratings/domain/model/EntityType"
import { type ListRequest, RatingsReader } from "@ratings/domain/services/RatingsReader"
import { Effect, Layer, Option, type Schema } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { CurrentCaller } from "../api/CurrentCaller.ts"
import { type ListQuery, toListRequest } from "../api/Parameters.ts"
import { optionalCache, successCodecOf } from "./CachedRoutes.ts"
import { mapReadErrors } from "./ErrorMapping.ts"
import { type EncodedList, encodeList, listPageBody, MaxListSnapshotItems } from "./ListPages.ts"
import type { ResponseCache, SnapshotSource } from "./cache/ResponseCache.ts"

/** The caller the authentication middleware established, or an anonymous one by address. */
export const currentCaller = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Caller> =>
  Effect.map(
    Effect.serviceOption(CurrentCaller),
    Option.getOrElse(() => Callers.anonymous(Option.getOrElse(request.remoteAddress, () => "unknown")))
  )

interface Req {
  readonly request: HttpServerRequest.HttpServerRequest
}

type Cached = "list" | "detail" | "scorecards" | RatingRead

/** The rating reads: one entity's figures, gated by tier. */
type RatingRead = "domains" | "history" | "questions" | "rubric" | "evidence" | "scorecardById"

/**
 * The success codec HttpApiBuilder encodes the endpoint's value with (the
 * endpoint holds it already turned into its JSON codec): the cache encodes
 * with the same.
 */
export const successCodec = (type: EntityType, endpoint: Cached): Schema.Top =>
  successCodecOf(PluralOf[type], endpoint)

/**
 * The key of a list: the reader's request (defaults applied, so `?limit=50`
 * and no limit share it) with the flags the caller's bypass really gets.
 */
const listKey = (projection: TierProjection, caller: Caller, request: ListRequest): string => {
  const flags = projection.effectiveListFlags(caller, request)
  return `list|${request.entity_type}|${JSON.stringify([
    request.status,
    request.search,
    request.categories,
    request.chain,
    request.curator_id,
    request.skip,
    request.limit,
    flags.include_inactive,
    flags.include_frameworks,
    flags.include_unpublished
  ])}`
}

const detailKey = (
  projection: TierProjection,
  caller: Caller,
  type: EntityType,
  identifier: string,
  includeInactive: boolean
): string => {
  const flags = projection.effectiveListFlags(caller, { include_inactive: includeInactive })
  return `detail|${type}|${flags.include_inactive}|${flags.include_unpublished}|${identifier}`
}

const scorecardsKey = (type: EntityType, idOrSlug: string): string => `scorecards|${type}|${idOrSlug}`

/** A rating read's key: the route, the entity's slug (or the scorecard's id) and the caller's tier. */
const ratingKey = (endpoint: RatingRead, type: EntityType, caller: Caller, identifier: string): string =>
  `${endpoint}|${type}|${callerKind(caller)}|${identifier}`

const withCaller = <A, E>(
  request: HttpServerRequest.HttpServerRequest,
  use: (caller: Caller) => Effect.Effect<A, E>
) => mapReadErrors(Effect.flatMap(currentCaller(request), use))

/** A read of a cached endpoint through the cache, when there is one. */
const makeCached = <T extends EntityType>(type: T, cache: ResponseCache["Service"] | undefined) => {
  const codecs: Record<Cached, Schema.Top> = {
    list: successCodec(type, "list"),
    detail: successCodec(type, "detail"),
    scorecards: successCodec(type, "scorecards"),
    domains: successCodec(type, "domains"),
    history: successCodec(type, "history"),
    questions: successCodec(type, "questions"),
    rubric: successCodec(type, "rubric"),
    evidence: successCodec(type, "evidence"),
    scorecardById: successCodec(type, "scorecardById")
  }
  return <A, E, S = never>(
    caller: Caller,
    endpoint: Cached,
    key: string,
    compute: () => Effect.Effect<A, E>,
    entityOf: (value: A) => string | undefined,
    snapshot?: SnapshotSource<S, E>
  ) =>
    cache === undefined
      ? compute()
      : cache.respond({ caller, key, type, schema: codecs[endpoint], compute, entityOf, snapshot })
}

/**
 * Where a list miss's body comes from: the whole list of the type, encoded
 * once per projection class and version (ListPages.ts), paged and filtered
 * in memory exactly as the store would. Only cached reads use it, so never
 * an admin's (whose bypass flags the snapshot does not apply).
 */
const listSnapshotSource = (
  reader: RatingsReader["Service"],
  caller: Caller,
  type: EntityType,
  request: ListRequest
): SnapshotSource<EncodedList, Effect.Error<ReturnType<typeof reader.listSnapshot>>> => ({
  key: `list-snapshot|${type}`,
  build: () =>
    reader.listSnapshot(caller, type, MaxListSnapshotItems).pipe(
      Effect.flatMap((snapshot) => encodeList(snapshot, successCodec(type, "list"))),
      Effect.map((list) => ({ value: list, bytes: list.bytes }))
    ),
  body: (list) => listPageBody(list, request)
})

/**
 * The handlers of the list, detail and scorecard-list routes, shared in the
 * cache by a projection class (anonymous and Free; Pro and Enterprise); the
 * keys carry the list flags the projection gives the caller.
 */
const cachedHandlers = <T extends EntityType>(
  reader: RatingsReader["Service"],
  projection: TierProjection,
  type: T,
  cached: ReturnType<typeof makeCached<T>>
) => ({
  list: ({ request, query }: Req & { readonly query: ListQuery }) =>
    withCaller(request, (caller) => {
      const listRequest = toListRequest(type, query)
      return cached(
        caller,
        "list",
        listKey(projection, caller, listRequest),
        () =>
          Effect.map(reader.list(caller, listRequest), (page) => ({
            items: page.items as ReadonlyArray<EntityRecordOf<T>>,
            total: page.total
          })),
        () => undefined,
        listSnapshotSource(reader, caller, type, listRequest)
      )
    }),
  detail: ({
    request,
    params,
    query
  }: Req & {
    readonly params: { readonly identifier: string }
    readonly query: { readonly include_inactive?: boolean | undefined }
  }) =>
    withCaller(request, (caller) => {
      const includeInactive = query.include_inactive ?? false
      return cached(
        caller,
        "detail",
        detailKey(projection, caller, type, params.identifier, includeInactive),
        () =>
          reader.detail(caller, type, params.identifier, includeInactive) as Effect.Effect<
            EntityRecordOf<T>,
            Effect.Error<ReturnType<typeof reader.detail>>
          >,
        (record) => record.id
      )
    }),
  scorecards: ({ request, params }: Req & { readonly params: { readonly id_or_slug: string } }) =>
    withCaller(request, (caller) =>
      cached(
        caller,
        "scorecards",
        scorecardsKey(type, params.id_or_slug),
        () => reader.scorecards(caller, type, params.id_or_slug),
        // An empty list names no entity: it is dropped on any change of the type.
        (page) => page.items[0]?.entity_id
      )
    )
})

/**
 * The handlers of the rating reads, cached per tier: each tier may or may not
 * be allowed a read, so an entry is only ever computed for, and served to,
 * callers of one tier, and a refusal (403) is never stored. The bodies name
 * their entity by slug only, so an entry is dropped on any change of the type
 * (entityOf undefined), except a scorecard's, which names its entity by id.
 */
const ratingHandlers = <T extends EntityType>(
  reader: RatingsReader["Service"],
  type: T,
  cached: ReturnType<typeof makeCached<T>>
) => {
  const bySlug =
    <A, E>(endpoint: RatingRead, read: (caller: Caller, slug: string) => Effect.Effect<A, E>) =>
    ({ request, params }: Req & { readonly params: { readonly slug: string } }) =>
      withCaller(request, (caller) =>
        cached(
          caller,
          endpoint,
          ratingKey(endpoint, type, caller, params.slug),
          () => read(caller, params.slug),
          () => undefined
        )
      )
  return {
    domains: bySlug("domains", (caller, slug) => reader.domains(caller, type, slug)),
    history: bySlug("history", (caller, slug) => reader.history(caller, type, slug)),
    questions: bySlug("questions", (caller, slug) => reader.questions(caller, type, slug)),
    rubric: bySlug("rubric", (caller, slug) => reader.rubric(caller, type, slug)),
    evidence: bySlug("evidence", (caller, slug) => reader.evidence(caller, type, slug)),
    scorecardById: ({ request, params }: Req & { readonly params: { readonly scorecard_id: string } }) =>
      withCaller(request, (caller) =>
        cached(
          caller,
          "scorecardById",
          ratingKey("scorecardById", type, caller, params.scorecard_id),
          () => reader.scorecardById(caller, type, params.scorecard_id),
          (card) => card.entity_id
        )
      )
  }
}

/**
 * The handlers of one type. The reader returns records of any type; the store
 * keys them by type, so the record of a /tokens route is a Token (and the
 * response encoding checks it against the Token schema). The cache keys
 * carry the list flags the tier projection in context gives the caller.
 */
const handlersOf = <T extends EntityType>(type: T) =>
  Effect.gen(function* () {
    const reader = yield* RatingsReader
    const projection = yield* Projection
    const cache = yield* optionalCache
    const cached = makeCached(type, cache)
    return {
      ...cachedHandlers(reader, projection, type, cached),
      ...ratingHandlers(reader, type, cached)
    }
  })

export const ProtocolsHandlers = HttpApiBuilder.group(RatingsApi, "protocols", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(yield* handlersOf("protocol"))
  })
)
export const ChainsHandlers = HttpApiBuilder.group(RatingsApi, "chains", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(yield* handlersOf("chain"))
  })
)
export const TokensHandlers = HttpApiBuilder.group(RatingsApi, "tokens", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(yield* handlersOf("token"))
  })
)
export const OraclesHandlers = HttpApiBuilder.group(RatingsApi, "oracles", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(yield* handlersOf("oracle"))
  })
)
export const VaultsHandlers = HttpApiBuilder.group(RatingsApi, "vaults", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(yield* handlersOf("vault"))
  })
)
export const OrganisationsHandlers = HttpApiBuilder.group(RatingsApi, "organisations", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(yield* handlersOf("organisation"))
  })
)
export const BridgesHandlers = HttpApiBuilder.group(RatingsApi, "bridges", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(yield* handlersOf("bridge"))
  })
)

export const EntityHandlers = Layer.mergeAll(
  ProtocolsHandlers,
  ChainsHandlers,
  TokensHandlers,
  OraclesHandlers,
  VaultsHandlers,
  OrganisationsHandlers,
  BridgesHandlers
)
