/**
 * Host-root routes: `/health` (spec part 4 "Methodology and health": 200 with a
 * minimal payload, no runtime configuration exposed).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"

export const HealthBody = Schema.Struct({
  status: Schema.Literal("ok")
}).annotate({ identifier: "HealthBody", description: "The service is up" })

export class SystemApi extends HttpApiGroup.make("system", { topLevel: true }).add(
  HttpApiEndpoint.get("health", "/health", { success: HealthBody })
) {}
