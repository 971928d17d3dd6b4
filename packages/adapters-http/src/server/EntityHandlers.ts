/**
 * Handlers of the per-entity read routes of the seven types. Each is a few
 * lines: the contract decoded the request, the domain's RatingsReader applies
 * the tier and visibility rules, and the result (or its error, mapped once in
 * ErrorMapping) goes back. Thin on purpose: the list and scorecard routes can
 * later return a cached, already-encoded response instead of the value.
 *
 * The caller is read from CurrentCaller, which the authentication middleware
 * provides; until it is wired, a request without it is anonymous.
 */
import type { EntityRecordOf } from "@ratings/domain/model/Entity"
import { type Caller, Caller as Callers } from "@ratings/domain/model/Caller"
import type { EntityType } from "@ratings/domain/model/EntityType"
import { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { Effect, Layer, Option } from "effect"
import type { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { CurrentCaller } from "../api/CurrentCaller.ts"
import { type ListQuery, toListRequest } from "../api/Parameters.ts"
import { mapReadErrors } from "./ErrorMapping.ts"

/** The caller the authentication middleware established, or an anonymous one by address. */
export const currentCaller = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Caller> =>
  Effect.map(
    Effect.serviceOption(CurrentCaller),
    Option.getOrElse(() => Callers.anonymous(Option.getOrElse(request.remoteAddress, () => "unknown")))
  )

interface Req {
  readonly request: HttpServerRequest.HttpServerRequest
}

/**
 * The handlers of one type. The reader returns records of any type; the store
 * keys them by type, so the record of a /tokens route is a Token (and the
 * response encoding checks it against the Token schema).
 */
const handlersOf = <T extends EntityType>(reader: RatingsReader["Service"], type: T) => {
  const withCaller = <A, E>(
    request: HttpServerRequest.HttpServerRequest,
    use: (caller: Caller) => Effect.Effect<A, E>
  ) => mapReadErrors(Effect.flatMap(currentCaller(request), use))
  return {
    list: ({ request, query }: Req & { readonly query: ListQuery }) =>
      withCaller(request, (caller) =>
        Effect.map(reader.list(caller, toListRequest(type, query)), (page) => ({
          items: page.items as ReadonlyArray<EntityRecordOf<T>>,
          total: page.total
        }))
      ),
    detail: ({
      request,
      params,
      query
    }: Req & {
      readonly params: { readonly identifier: string }
      readonly query: { readonly include_inactive?: boolean | undefined }
    }) =>
      withCaller(
        request,
        (caller) =>
          reader.detail(caller, type, params.identifier, query.include_inactive ?? false) as Effect.Effect<
            EntityRecordOf<T>,
            Effect.Error<ReturnType<typeof reader.detail>>
          >
      ),
    scorecards: ({ request, params }: Req & { readonly params: { readonly id_or_slug: string } }) =>
      withCaller(request, (caller) => reader.scorecards(caller, type, params.id_or_slug)),
    domains: ({ request, params }: Req & { readonly params: { readonly slug: string } }) =>
      withCaller(request, (caller) => reader.domains(caller, type, params.slug)),
    history: ({ request, params }: Req & { readonly params: { readonly slug: string } }) =>
      withCaller(request, (caller) => reader.history(caller, type, params.slug)),
    questions: ({ request, params }: Req & { readonly params: { readonly slug: string } }) =>
      withCaller(request, (caller) => reader.questions(caller, type, params.slug)),
    rubric: ({ request, params }: Req & { readonly params: { readonly slug: string } }) =>
      withCaller(request, (caller) => reader.rubric(caller, type, params.slug)),
    evidence: ({ request, params }: Req & { readonly params: { readonly slug: string } }) =>
      withCaller(request, (caller) => reader.evidence(caller, type, params.slug)),
    scorecardById: ({ request, params }: Req & { readonly params: { readonly scorecard_id: string } }) =>
      withCaller(request, (caller) => reader.scorecardById(caller, type, params.scorecard_id))
  }
}

export const ProtocolsHandlers = HttpApiBuilder.group(RatingsApi, "protocols", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(handlersOf(yield* RatingsReader, "protocol"))
  })
)
export const ChainsHandlers = HttpApiBuilder.group(RatingsApi, "chains", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(handlersOf(yield* RatingsReader, "chain"))
  })
)
export const TokensHandlers = HttpApiBuilder.group(RatingsApi, "tokens", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(handlersOf(yield* RatingsReader, "token"))
  })
)
export const OraclesHandlers = HttpApiBuilder.group(RatingsApi, "oracles", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(handlersOf(yield* RatingsReader, "oracle"))
  })
)
export const VaultsHandlers = HttpApiBuilder.group(RatingsApi, "vaults", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(handlersOf(yield* RatingsReader, "vault"))
  })
)
export const OrganisationsHandlers = HttpApiBuilder.group(RatingsApi, "organisations", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(handlersOf(yield* RatingsReader, "organisation"))
  })
)
export const BridgesHandlers = HttpApiBuilder.group(RatingsApi, "bridges", (handlers) =>
  Effect.gen(function* () {
    return handlers.handleAll(handlersOf(yield* RatingsReader, "bridge"))
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
