/**
 * The ratings explorer's routes, mounted by `ratings serve` beside the API:
 * the home page and lists, entity pages, incidents, methodology and the
 * quantum league, the sign-in forms and the static assets. Each page reads
 * through the same domain services and tier projection as the API's handlers,
 * for the caller the server's admission step establishes (docs/adr/0010).
 * A browser asking for a path nothing serves gets the explorer's 404 page
 * (left with the server's FallbackPages; the API's paths keep their JSON).
 */
import { Admission } from "@ratings/adapters-http/server/admission/Admission"
import { type AuthConfig, trustedHops } from "@ratings/adapters-http/server/AuthConfig"
import { ResponseCache } from "@ratings/adapters-http/server/cache/ResponseCache"
import { FallbackPages } from "@ratings/adapters-http/server/RouterFallbacks"
import { RequestRateLimiter } from "@ratings/adapters-http/server/limits/RateLimit"
import { Projection } from "@ratings/domain/access/Projection"
import { IncidentService } from "@ratings/domain/services/IncidentService"
import { QuantumService } from "@ratings/domain/services/QuantumService"
import { RatingsReader } from "@ratings/domain/services/RatingsReader"
import { Branding } from "@ratings/domain/model/ServiceInfo"
import { Effect, Layer, Option } from "effect"
import { AssetRoutes } from "./Assets.ts"
import { entityRoutes } from "./EntityRoutes.ts"
import { feedRoutes } from "./FeedPages.ts"
import { listRoutes } from "./ListRoutes.ts"
import { type ExplorerSettings, notFoundPage } from "./Pages.ts"
import { signInRoutes } from "./SignIn.ts"
import { webhooksRoutes } from "./WebhooksRoutes.ts"

/**
 * The explorer's routes under the server's authentication settings (the
 * admission step is built from them over the server's key memo and rate
 * limiter, so it decides as the API's does; the trusted proxies also say
 * whether the cookie is Secure and which host a form must come from).
 */
export const explorerRoutes = (auth: AuthConfig) =>
  Layer.unwrap(
    Effect.gen(function* () {
      const settings: ExplorerSettings = {
        branding: yield* Branding,
        services: {
          admission: yield* Admission,
          limiter: yield* RequestRateLimiter,
          reader: yield* RatingsReader,
          projection: yield* Projection,
          incidents: yield* IncidentService,
          quantum: yield* QuantumService
        },
        cache: Option.getOrUndefined(yield* Effect.serviceOption(ResponseCache)),
        trustedHops: trustedHops(auth.trustProxy)
      }
      const fallbacks = yield* Effect.serviceOption(FallbackPages)
      if (Option.isSome(fallbacks)) fallbacks.value.setNotFound(notFoundPage(settings))
      return Layer.mergeAll(
        AssetRoutes,
        ...listRoutes(settings),
        ...entityRoutes(settings),
        ...feedRoutes(settings),
        ...signInRoutes(settings),
        webhooksRoutes(settings)
      )
    })
    // The server checks the same configuration as it starts: unusable, it does not start.
  ).pipe(Layer.provide(Layer.orDie(Admission.layer(auth))))
