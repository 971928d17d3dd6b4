/**
 * Rate-limit stores for tests: a fixed-window store answering as `fixedWindow`
 * says (the limiter uses no other algorithm), wrapped in Effect's limiter.
 */
import { Effect, Layer } from "effect"
import { RateLimiter } from "effect/persistence"

type FixedWindow = RateLimiter.RateLimiterStore["Service"]["fixedWindow"]

/** Effect's limiter over a store whose fixed window is `fixedWindow`. */
export const limiterOverStore = (fixedWindow: FixedWindow) =>
  RateLimiter.layer.pipe(
    Layer.provide(
      Layer.succeed(RateLimiter.RateLimiterStore, {
        fixedWindow,
        tokenBucket: () => Effect.die("unused"),
        adaptiveConsume: () => Effect.die("unused"),
        adaptiveFeedback: () => Effect.die("unused")
      })
    )
  )

/** A store failure as Redis's store reports one. */
export const storeFailure = (message: string, cause?: unknown) =>
  new RateLimiter.RateLimiterError({ reason: new RateLimiter.RateLimitStoreError({ message, cause }) })

/** Effect's limiter over a store that fails every call. */
export const failingLimiter = limiterOverStore(() => Effect.fail(storeFailure("connection refused")))
