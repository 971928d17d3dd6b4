/**
 * The HTTP contract of the ratings service. Client-safe: it imports schemas and
 * nothing of the server, so tests, the typed client and the CLI can use it.
 * Every parameter or path failure is a 422 with a FastAPI-style body listing
 * every failed parameter, not only the first; a credential that does not work
 * is a 401 whatever the parameters. The order of the middlewares that makes
 * this so is explained where `RatingsApi` declares them.
 */
import { type Branding, DefaultBranding } from "@ratings/domain/model/ServiceInfo"
import { HttpApi, HttpApiMiddleware, OpenApi } from "effect/http-api"
import { AlertRulesApi } from "./AlertRulesApi.ts"
import { Authentication, documentOptionalBearer, withoutAuthorizationParameter } from "./Authentication.ts"
import { ContactsApi } from "./ContactsApi.ts"
import {
  BridgesApi,
  ChainsApi,
  OraclesApi,
  OrganisationsApi,
  ProtocolsApi,
  TokensApi,
  VaultsApi
} from "./EntitiesApi.ts"
import { FiniteNumbers, RateLimitedError, ServiceUnavailableError, ValidationErrors } from "./Errors.ts"
import { IncidentsApi } from "./IncidentsApi.ts"
import { MethodologyApi } from "./MethodologyApi.ts"
import { QuantumApi } from "./QuantumApi.ts"
import { documentRouterResponses } from "./RouterResponses.ts"
import { SystemApi } from "./SystemApi.ts"
import { UtilitiesApi } from "./UtilitiesApi.ts"

export const ApiVersion = "0.1.0"

/**
 * The MCP server for AI agents (/mcp) speaks JSON-RPC on one path, not REST
 * operations, so the document names it instead of listing it.
 */
export const McpNote =
  "AI agents: the same data through MCP tools (Model Context Protocol, streamable HTTP) at POST /mcp, with " +
  "the caller's own Authorization; its JSON-RPC messages are not operations of this document (see the " +
  "README, AI agents (MCP))."
export const ApiPrefix = "/api/v1"

/** Defined beside the other errors (authentication answers it too); exported here as before. */
export { RateLimitedError }

const CollectAllIssues = { errors: "all" } as const

/**
 * What depends on who is calling, on every route but /health and /ready: the request
 * rate limit (429; 503 while its shared store is unreachable, when it is
 * configured to fail closed), the attribution anonymous and Free use carries, and the
 * cache headers (public or private). It reads the caller Authentication
 * provides, so it must run inside it: declared before it (a middleware
 * declared earlier runs inside the ones declared later).
 */
export class CallerPolicies extends HttpApiMiddleware.Service<CallerPolicies>()(
  "@ratings/adapters-http/CallerPolicies",
  { error: [RateLimitedError, ServiceUnavailableError] }
) {}

// biome-ignore lint/suspicious/noExplicitAny: the OpenAPI document is plain JSON, as OpenApi.Transform types it
type Json = Record<string, any>

/** The OpenAPI title (and the docs page's): `<service name> API`. */
export const apiTitleOf = (branding: Branding): string => `${branding.serviceName} API`

/**
 * The operations under a branding: their examples (./Examples.ts) were
 * answered under the default branding (the methodology's name, attribution
 * texts), so its names and links in them become the operator's.
 */
const rebrandExamples = (paths: Json, branding: Branding): Json => {
  if (branding === DefaultBranding) return paths
  const keys = [
    "attribution",
    "methodologyUrl",
    "termsUrl",
    "siteUrl",
    "frameworkName",
    "serviceName"
  ] as const
  let text = JSON.stringify(paths)
  for (const key of keys)
    text = text.replaceAll(JSON.stringify(DefaultBranding[key]).slice(1, -1), () =>
      JSON.stringify(branding[key]).slice(1, -1)
    )
  return JSON.parse(text)
}

/**
 * The document's `info` under a branding ("Operator branding"): the
 * title is `<service name> API`, the terms of service and the contact are the
 * operator's, and the methodology is linked as the external documentation,
 * under the framework's name.
 */
export const brandDocument = (spec: Json, branding: Branding): Json => ({
  ...spec,
  paths: rebrandExamples(spec.paths, branding),
  info: {
    ...spec.info,
    title: apiTitleOf(branding),
    termsOfService: branding.termsUrl,
    contact: { name: branding.serviceName, url: branding.siteUrl }
  },
  externalDocs: { description: branding.frameworkName, url: branding.methodologyUrl }
})

const transformOf = (branding: Branding) => (spec: Json) =>
  brandDocument(documentRouterResponses(documentOptionalBearer(spec)), branding)

// The groups in the order /docs lists their OpenAPI tags; each tag in sentence case (the entity
// groups name theirs in EntitiesApi.ts). A middleware declared later runs outside the earlier
// ones: Authentication runs first (its OpenAPI transform marks the bearer scheme optional);
// ValidationErrors applies to every group, so it stays after all groups are added; FiniteNumbers
// runs innermost, next to decoding, so a number JSON.parse reads as Infinity is a 422 too.
export class RatingsApi extends HttpApi.make("ratings")
  .add(ProtocolsApi.prefix(ApiPrefix))
  .add(ChainsApi.prefix(ApiPrefix))
  .add(TokensApi.prefix(ApiPrefix))
  .add(OraclesApi.prefix(ApiPrefix))
  .add(VaultsApi.prefix(ApiPrefix))
  .add(OrganisationsApi.prefix(ApiPrefix))
  .add(BridgesApi.prefix(ApiPrefix))
  .add(IncidentsApi.annotate(OpenApi.Title, "Incidents").prefix(ApiPrefix))
  .add(QuantumApi.annotate(OpenApi.Title, "Quantum readiness").prefix(ApiPrefix))
  .add(MethodologyApi.annotate(OpenApi.Title, "Methodology").prefix(ApiPrefix))
  .add(UtilitiesApi.annotate(OpenApi.Title, "Export and compare").prefix(ApiPrefix))
  .add(AlertRulesApi.annotate(OpenApi.Title, "Alert rules").prefix(ApiPrefix))
  .add(ContactsApi.annotate(OpenApi.Title, "Coverage requests").prefix(ApiPrefix))
  .middleware(FiniteNumbers)
  .middleware(CallerPolicies)
  .add(SystemApi.annotate(OpenApi.Title, "System"))
  .middleware(ValidationErrors)
  .middleware(Authentication)
  .annotate(OpenApi.Transform, transformOf(DefaultBranding))
  .annotate(HttpApi.QueryParseOptions, CollectAllIssues)
  .annotate(HttpApi.ParamsParseOptions, CollectAllIssues)
  .annotate(HttpApi.PayloadParseOptions, CollectAllIssues)
  .annotateMerge(
    OpenApi.annotations({
      title: apiTitleOf(DefaultBranding),
      version: ApiVersion,
      description:
        "Letter grades and scorecards for DeFi protocols, chains, tokens, oracles, vaults, organisations and bridges. " +
        McpNote
    })
  ) {}

/**
 * The contract documented under a branding: the same groups and endpoints
 * (the handlers of RatingsApi serve it), its OpenAPI `info` the operator's.
 * RatingsApi itself is documented under the default branding.
 */
export const brandedApi = (branding: Branding): typeof RatingsApi =>
  branding === DefaultBranding
    ? RatingsApi
    : (RatingsApi.annotateMerge(
        OpenApi.annotations({ title: apiTitleOf(branding), transform: transformOf(branding) })
      ) as typeof RatingsApi)

/**
 * The contract as /docs shows it under a branding: the branded document
 * without the `authorization` header parameter (the viewer sends the header
 * from the bearer scheme; see `withoutAuthorizationParameter`).
 */
export const docsApi = (branding: Branding): typeof RatingsApi =>
  RatingsApi.annotateMerge(
    OpenApi.annotations({
      title: apiTitleOf(branding),
      transform: (spec) => withoutAuthorizationParameter(transformOf(branding)(spec))
    })
  ) as typeof RatingsApi
