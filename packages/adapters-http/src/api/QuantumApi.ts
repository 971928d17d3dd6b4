/**
 * Post-quantum readiness (spec part 4 "Quantum readiness"; api-facts "Quantum
 * readiness"): the league table and one chain by service chain slug. Both are
 * public and always 200: a chain the service does not know, or one the source
 * has not assessed, is `available: false` with a reason (rule 2), so the slug
 * is not validated as a path parameter beyond being text.
 */
import { QuantumChainResponse, QuantumLeagueResponse } from "@ratings/domain/model/Quantum"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ListErrors } from "./Errors.ts"
import { documentExamples } from "./Examples.ts"
import { ServiceExamples } from "./examples/ServiceExamples.ts"

const Attribution =
  "Data from a third-party source (LayerQu), attributed on every payload (source, source_url, attribution); " +
  "it is shown beside ratings and never feeds grades. Every available payload carries as_of (snapshot " +
  "time); stale: true appears only when an upstream refresh failed and an expired snapshot is served; " +
  "available: false with a reason means nothing could be served."

export class QuantumApi extends HttpApiGroup.make("quantum").add(
  HttpApiEndpoint.get("leagueTable", "/quantum-readiness", {
    success: QuantumLeagueResponse,
    error: ListErrors
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Quantum-readiness league table",
      description:
        "Per chain: readiness score (qri), band 1 to 7 with label, migration stage, hybrid-signature status, " +
        "danger flag, and matched_chain_slug (the service chain slug when the chain exists in the service, " +
        `drafts included, else null); plus rows_skipped (malformed source rows). ${Attribution} Public.`,
      transform: documentExamples({ responses: { 200: ServiceExamples.quantumLeague } })
    })
  ),
  HttpApiEndpoint.get("chain", "/chains/:slug/quantum-readiness", {
    params: { slug: Schema.String },
    success: QuantumChainResponse,
    error: ListErrors
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Quantum readiness of one chain",
      description:
        "One chain by service chain slug. Unknown chains and chains the source has not assessed answer 200 " +
        `with available: false and a reason. ${Attribution} Public.`,
      transform: documentExamples({
        parameters: { slug: "ethereum" },
        responses: { 200: ServiceExamples.quantumChain }
      })
    })
  )
) {}
