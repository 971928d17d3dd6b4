/**
 * `GET /api/v1/methodology` (public): methodology metadata, question and domain
 * counts, and the grade ladder the scoring core uses.
 */
import { MethodologyBody } from "@ratings/domain/model/Responses"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { documentExamples } from "./Examples.ts"
import { ServiceExamples } from "./examples/ServiceExamples.ts"

export class MethodologyApi extends HttpApiGroup.make("methodology").add(
  HttpApiEndpoint.get("methodology", "/methodology", { success: MethodologyBody }).annotateMerge(
    OpenApi.annotations({ transform: documentExamples({ responses: { 200: ServiceExamples.methodology } }) })
  )
) {}
