/**
 * The HTTP contract of the ratings service. Client-safe: it imports schemas and
 * nothing of the server, so tests, the typed client and the CLI can use it.
 *
 * Every parameter or path failure is a 422 with a FastAPI-style body: the
 * ValidationErrors middleware is applied to every group (so it must stay the
 * last step after all groups are added), and decoding collects every failed
 * parameter, not only the first.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import {
  BridgesApi,
  ChainsApi,
  OraclesApi,
  OrganisationsApi,
  ProtocolsApi,
  TokensApi,
  VaultsApi
} from "./EntitiesApi.ts"
import { ValidationErrors } from "./Errors.ts"
import { MethodologyApi } from "./MethodologyApi.ts"
import { SystemApi } from "./SystemApi.ts"

export const ApiVersion = "0.1.0"
export const ApiPrefix = "/api/v1"

const CollectAllIssues = { errors: "all" } as const

export class RatingsApi extends HttpApi.make("ratings")
  .add(ProtocolsApi.prefix(ApiPrefix))
  .add(ChainsApi.prefix(ApiPrefix))
  .add(TokensApi.prefix(ApiPrefix))
  .add(OraclesApi.prefix(ApiPrefix))
  .add(VaultsApi.prefix(ApiPrefix))
  .add(OrganisationsApi.prefix(ApiPrefix))
  .add(BridgesApi.prefix(ApiPrefix))
  .add(MethodologyApi.prefix(ApiPrefix))
  .add(SystemApi)
  .middleware(ValidationErrors)
  .annotate(HttpApi.QueryParseOptions, CollectAllIssues)
  .annotate(HttpApi.ParamsParseOptions, CollectAllIssues)
  .annotateMerge(
    OpenApi.annotations({
      title: "DeFi Risk Ratings API",
      version: ApiVersion,
      description:
        "Letter grades and scorecards for DeFi protocols, chains, tokens, oracles, vaults, organisations and bridges."
    })
  ) {}
