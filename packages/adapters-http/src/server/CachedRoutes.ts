/**
 * What the handlers of cached routes share: the success codec HttpApiBuilder
 * encodes an endpoint's value with (the cache encodes with the same, so a
 * cached body is byte-identical to the computed one), and the server's
 * ResponseCache when it was given one.
 */
import { Effect, Option, type Schema } from "effect"
import type { HttpApiGroup } from "effect/http-api"
import { RatingsApi } from "../api/Api.ts"
import { ResponseCache } from "./cache/ResponseCache.ts"

/** The endpoint's success codec (the endpoint holds it already turned into its JSON codec). */
export const successCodecOf = (group: string, endpoint: string): Schema.Top => {
  const groups = RatingsApi.groups as unknown as { readonly [group: string]: HttpApiGroup.Top }
  const [codec] = groups[group]?.endpoints[endpoint]?.success ?? []
  if (codec === undefined) throw new Error(`${group}.${endpoint} declares no success schema`)
  return codec
}

/** The server's ResponseCache, when it was given one (read when the handlers are built). */
export const optionalCache = Effect.map(Effect.serviceOption(ResponseCache), Option.getOrUndefined)
