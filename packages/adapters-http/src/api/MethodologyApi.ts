/**
 * `GET /api/v1/methodology` (public): methodology metadata, question and domain
 * counts, and the grade ladder the scoring core uses.
 */
import { MethodologyBody } from "@ratings/domain/model/Responses"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

export class MethodologyApi extends HttpApiGroup.make("methodology").add(
  HttpApiEndpoint.get("methodology", "/methodology", { success: MethodologyBody })
) {}
