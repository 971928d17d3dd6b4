/**
 * The operator's branding (RATINGS_SERVICE_NAME and the rest): the names,
 * site, terms and attribution the service publishes itself under, each value
 * checked where it will be written (HTTP headers, JSON, HTML).
 */
import { type Branding, brandingOf } from "@ratings/domain/model/ServiceInfo"
import { Config, Option, Schema } from "effect"

/**
 * Operator branding: the names, site, terms and attribution text
 * the service publishes itself under. The service name and the attribution
 * are sent in HTTP headers (the Link header's title, X-Attribution), so they
 * are printable ASCII; the framework name only goes into JSON and HTML, so any
 * text without control characters. Every value is bounded, and surrounding
 * spaces are dropped. The URLs are absolute http or https URLs written with
 * URL characters only (so they stand as they are inside the Link header's
 * `<...>` and in an HTML attribute), without a user name or password.
 */
export const BrandingSettings = {
  serviceName: "RATINGS_SERVICE_NAME",
  frameworkName: "RATINGS_FRAMEWORK_NAME",
  siteUrl: "RATINGS_SITE_URL",
  termsUrl: "RATINGS_TERMS_URL",
  attribution: "RATINGS_ATTRIBUTION"
} as const

const brandingText = (maxLength: number, asciiOnly: boolean) =>
  Schema.String.check(
    Schema.makeFilter((value: string) => {
      const text = value.trim()
      if (text === "") return "must not be empty"
      if (text.length > maxLength) return `must be at most ${maxLength} characters`
      if (asciiOnly && !/^[\x20-\x7e]*$/.test(text))
        return "must be printable ASCII text (it is sent in HTTP headers): no control characters, line breaks or non-ASCII letters"
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
      if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text))
        return "must not hold control characters or line breaks"
      return true
    })
  )

/** Characters a URL may be written with (RFC 3986: unreserved, reserved and %). */
const UrlCharacters = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/

const MaxBrandingUrlLength = 2_000

const brandingUrl = (allowQueryAndFragment: boolean) =>
  Schema.String.check(
    Schema.makeFilter((value: string) => {
      const text = value.trim()
      if (text.length > MaxBrandingUrlLength) return `must be at most ${MaxBrandingUrlLength} characters`
      if (!UrlCharacters.test(text))
        return "must be an absolute http or https URL written with URL characters only (no spaces, quotes, angle brackets or control characters)"
      let url: URL
      try {
        url = new URL(text)
      } catch {
        return "must be an absolute http or https URL such as https://ratings.example"
      }
      if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an http or https URL"
      if (url.username !== "" || url.password !== "") return "must not hold a user name or password"
      if (!allowQueryAndFragment && (url.search !== "" || url.hash !== ""))
        return "must have no query or fragment (the methodology and terms URLs are made by adding to it)"
      return true
    })
  )

const brandingSetting = (name: string, schema: Schema.Codec<string, string>) =>
  Config.option(Config.schema(schema, name).pipe(Config.map((value) => value.trim())))

/** The branding, from RATINGS_SERVICE_NAME and the rest; unset, each value is the default or follows from the others (brandingOf). */
export const BrandingConfig: Config.Config<Branding> = Config.all({
  serviceName: brandingSetting(BrandingSettings.serviceName, brandingText(100, true)),
  frameworkName: brandingSetting(BrandingSettings.frameworkName, brandingText(200, false)),
  siteUrl: brandingSetting(BrandingSettings.siteUrl, brandingUrl(false)),
  termsUrl: brandingSetting(BrandingSettings.termsUrl, brandingUrl(true)),
  attribution: brandingSetting(BrandingSettings.attribution, brandingText(1_000, true))
}).pipe(
  Config.map((settings) =>
    brandingOf({
      serviceName: Option.getOrUndefined(settings.serviceName),
      frameworkName: Option.getOrUndefined(settings.frameworkName),
      siteUrl: Option.getOrUndefined(settings.siteUrl),
      termsUrl: Option.getOrUndefined(settings.termsUrl),
      attribution: Option.getOrUndefined(settings.attribution)
    })
  )
)
