/**
 * The value types the service's settings are read as, shared by the
 * configuration modules: NODE_ENV, booleans, http URLs and positive
 * durations. A value the parser does not understand stops the start with a
 * message naming the variable, instead of silently meaning a default.
 */
import { Config, Duration, type Option, Schema } from "effect"

/** The values NODE_ENV may take, exactly as written here; any other value stops the start. */
export const Environments = ["production", "development", "test"] as const
export type Environment = (typeof Environments)[number]

const EnvironmentValue = Schema.String.check(
  Schema.makeFilter(
    (value: string) =>
      (Environments as ReadonlyArray<string>).includes(value) ||
      "must be production, development or test (exactly, in lower case)"
  )
)

/** NODE_ENV, checked; None when it is unset. */
export const EnvironmentConfig: Config.Config<Option.Option<Environment>> = Config.option(
  Config.schema(EnvironmentValue, "NODE_ENV")
) as Config.Config<Option.Option<Environment>>

/**
 * A boolean setting: `true` or `false` (also `1` or `0`), in any case. Any
 * other value stops the start naming the variable, instead of silently
 * meaning false.
 */
const BooleanText = Schema.String.check(
  Schema.makeFilter(
    (value: string) => /^(true|false|1|0)$/i.test(value) || "must be true or false (or 1 or 0)"
  )
)

export const booleanSetting = (name: string, fallback: boolean): Config.Config<boolean> =>
  Config.schema(BooleanText, name).pipe(
    Config.map((value) => /^(true|1)$/i.test(value)),
    Config.withDefault(fallback)
  )

/** An http or https URL (the quantum source, the OTLP collector). */
export const HttpUrl = Schema.URL.check(
  Schema.makeFilter(
    (url: URL) => url.protocol === "http:" || url.protocol === "https:" || "must be an http or https URL"
  )
)

/** A duration such as "1 hour" or "300 millis"; zero, negative and infinite ones are refused. */
export const PositiveDuration = Schema.DurationFromString.check(
  Schema.makeFilter((d: Duration.Duration) => {
    const millis = Duration.toMillis(d)
    return (millis > 0 && Number.isFinite(millis)) || 'must be a positive, finite duration such as "1 hour"'
  })
)

export const positiveDuration = (name: string, fallback: Duration.Duration) =>
  Config.schema(PositiveDuration, name).pipe(Config.withDefault(fallback))
