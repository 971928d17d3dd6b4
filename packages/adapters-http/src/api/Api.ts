/**
 * The HTTP contract of the ratings service. Client-safe: it imports schemas and
 * nothing of the server, so tests, the typed client and the CLI can use it.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { MethodologyApi } from "./MethodologyApi.ts"
import { SystemApi } from "./SystemApi.ts"

export const ApiVersion = "0.1.0"
export const ApiPrefix = "/api/v1"

export class RatingsApi extends HttpApi.make("ratings")
  .add(MethodologyApi.prefix(ApiPrefix))
  .add(SystemApi)
  .annotateMerge(
    OpenApi.annotations({
      title: "DeFi Risk Ratings API",
      version: ApiVersion,
      description:
        "Letter grades and scorecards for DeFi protocols, chains, tokens, oracles, vaults, organisations and bridges."
    })
  ) {}
