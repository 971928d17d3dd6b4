/**
 * The webhook settings: delivery (retry scale, concurrency overall and per
 * destination host, poll interval, claim lease), operations (when a failing endpoint is disabled, how long
 * delivery history is kept) and which targets may be called. The test-only settings are
 * refused outside NODE_ENV=test rather than ignored.
 */
import {
  DefaultConcurrency,
  DefaultHostConcurrency,
  DefaultPollInterval,
  TransportGraceMs
} from "@ratings/domain/services/WebhookDispatcher"
import { DefaultRetentionMs } from "@ratings/domain/services/WebhookHousekeeping"
import { DefaultDisableAfterMs } from "@ratings/domain/webhooks/EndpointHealth"
import { ReceiverTimeoutMs } from "@ratings/domain/webhooks/RetrySchedule"
import type { TargetPolicy } from "@ratings/domain/webhooks/WebhookTargetPolicy"
import { Config, ConfigProvider, Duration, Effect, Option, Schema } from "effect"
import { booleanSetting, EnvironmentConfig, PositiveDuration, positiveDuration } from "./ConfigValues.ts"

/** The test-only setting that shrinks the retry schedule; error messages name it. */
export const WebhookRetryScaleSetting = "RATINGS_WEBHOOK_RETRY_SCALE"

const RetryScale = Schema.Finite.check(
  Schema.makeFilter((scale: number) => scale > 0 || "must be a number greater than 0, such as 0.001")
)

/** The test-only setting that shortens the dispatcher's claim lease; error messages name it. */
export const WebhookLeaseSetting = "RATINGS_WEBHOOK_LEASE"

/**
 * The shortest lease the dispatcher accepts: a send may run to the receiver
 * timeout plus the transport grace, and the lease must outlast twice that
 * (WebhookDispatcher checks the same rule when it is built).
 */
export const MinimumWebhookLeaseMs = 2 * (ReceiverTimeoutMs + TransportGraceMs)

const Lease = PositiveDuration.check(
  Schema.makeFilter(
    (d: Duration.Duration) =>
      Duration.toMillis(d) > MinimumWebhookLeaseMs ||
      `must be longer than ${MinimumWebhookLeaseMs / 1_000} seconds (twice the receiver timeout plus the transport grace), such as "35 seconds"`
  )
)

/** Delivery history is kept at least an hour: long enough for the failed-delivery watchlist to mean something. */
const Retention = PositiveDuration.check(
  Schema.makeFilter(
    (d: Duration.Duration) =>
      Duration.toMillis(d) >= 3_600_000 || 'must be at least 1 hour, such as "30 days"'
  )
)

const Concurrency = Schema.Int.check(
  Schema.makeFilter((n: number) => (n >= 1 && n <= 1_000) || "must be a whole number from 1 to 1000")
)

/**
 * Most webhook sends in flight at once to one destination host (scheme, host
 * and port) in one server process; deliveries to a host at its bound wait
 * without taking a send slot. The transport sizes its connection pools by it.
 */
export const WebhookHostConcurrencyConfig = Config.schema(
  Concurrency,
  "RATINGS_WEBHOOK_HOST_CONCURRENCY"
).pipe(Config.withDefault(DefaultHostConcurrency))

/**
 * Webhook delivery settings. A retry scale or a lease outside NODE_ENV=test
 * is refused rather than ignored: a production process quietly retrying in
 * milliseconds (or silently not, when the operator meant it) is worse than
 * not starting.
 */
export const WebhookDeliveryConfig = Config.all({
  /**
   * Factor applied to the retry offsets (30 s ... 12 h), so a test can run the
   * whole schedule in seconds. Only tests use it: honoured when NODE_ENV=test,
   * and any other process refuses to start when it is set.
   */
  retryScale: Config.option(Config.schema(RetryScale, WebhookRetryScaleSetting)),
  /** Most webhook sends in flight at once in one server process. */
  concurrency: Config.schema(Concurrency, "RATINGS_WEBHOOK_CONCURRENCY").pipe(
    Config.withDefault(DefaultConcurrency)
  ),
  hostConcurrency: WebhookHostConcurrencyConfig,
  /** The longest the dispatcher waits between claims when nothing is due. */
  pollInterval: positiveDuration(
    "RATINGS_WEBHOOK_POLL_INTERVAL",
    Duration.fromInputUnsafe(DefaultPollInterval)
  ),
  /**
   * The lease of the dispatcher's claims (default 60 s). Only tests set it,
   * to shorten the wait for the claims of a killed process: honoured when
   * NODE_ENV=test, and any other process refuses to start when it is set.
   */
  lease: Config.option(Config.schema(Lease, WebhookLeaseSetting)),
  /** How long every attempt to an endpoint must have failed before it is disabled (default 5 days). */
  disableAfter: positiveDuration("RATINGS_WEBHOOK_DISABLE_AFTER", Duration.millis(DefaultDisableAfterMs)),
  /** How long delivered and failed deliveries and their attempts are kept (default 30 days, at least 1 hour). */
  retention: Config.schema(Retention, "RATINGS_WEBHOOK_RETENTION").pipe(
    Config.withDefault(Duration.millis(DefaultRetentionMs))
  ),
  environment: EnvironmentConfig
}).pipe(
  Config.mapEffect(({ environment, ...settings }) => {
    const testOnly = [
      ...(Option.isSome(settings.retryScale) ? [WebhookRetryScaleSetting] : []),
      ...(Option.isSome(settings.lease) ? [WebhookLeaseSetting] : [])
    ]
    return testOnly.length > 0 && Option.getOrUndefined(environment) !== "test"
      ? Effect.fail(
          new Config.ConfigError(
            new ConfigProvider.SourceError({
              message:
                `${testOnly[0]} is a setting only tests use: it is honoured only when NODE_ENV=test ` +
                `(NODE_ENV is ${Option.match(environment, { onNone: () => "unset", onSome: (e) => JSON.stringify(e) })}); unset it to start`
            })
          )
        )
      : Effect.succeed(settings)
  })
)

/** The setting that lets webhooks reach private, loopback and link-local targets. */
export const WebhookAllowPrivateTargetsSetting = "RATINGS_WEBHOOK_ALLOW_PRIVATE_TARGETS"

/**
 * Which webhook targets may be called (webhook URLs are
 * validated), for both the create-time check and every send: https unless
 * NODE_ENV is exactly development (unset is not: `npm start` sets it), and no private, loopback or link-local targets unless
 * RATINGS_WEBHOOK_ALLOW_PRIVATE_TARGETS=true. The default is the safe one: a
 * caller-chosen URL must not reach the service's own network.
 */
export const WebhookTargetsConfig: Config.Config<TargetPolicy> = Config.all({
  allowPrivateTargets: booleanSetting(WebhookAllowPrivateTargetsSetting, false),
  // Plain http only where development is explicit: an unset NODE_ENV is not development.
  requireHttps: EnvironmentConfig.pipe(
    Config.map((environment) => Option.getOrUndefined(environment) !== "development")
  )
})
