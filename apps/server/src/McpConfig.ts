/**
 * The settings of `ratings mcp`: the API its tools call (RATINGS_API_URL),
 * the key they call it with (RATINGS_API_KEY; none: anonymous), and the
 * operator's branding its serverInfo names (RATINGS_SERVICE_NAME and the rest).
 */
import { Config, Schema } from "effect"
import { BrandingConfig } from "./BrandingConfig.ts"
import { HttpUrl } from "./ConfigValues.ts"

/** Where `ratings mcp` sends the API calls of its tools, by default a server on this machine. */
export const DefaultApiUrl = "http://localhost:8080/api/v1"

/**
 * RATINGS_API_URL: the API's base, ending in /api/v1 as the live service's
 * clients write it (an origin alone, such as http://localhost:8080, is taken
 * too). Read as the origin (and any path before /api/v1) the typed client
 * adds /api/v1 and the route to.
 */
export const ApiBaseUrl = HttpUrl.check(
  Schema.makeFilter(
    (url: URL) =>
      ((/^(\/.*)?\/api\/v1\/?$/.test(url.pathname) || url.pathname === "/") &&
        url.search === "" &&
        url.hash === "" &&
        url.username === "" &&
        url.password === "") ||
      "must be the API's base URL ending in /api/v1, such as http://localhost:8080/api/v1 (no query, fragment or credentials)"
  )
)

/** The base the typed client is given: the URL without its trailing /api/v1. */
export const clientBaseOf = (url: URL): string =>
  `${url.origin}${url.pathname.replace(/\/?(api\/v1\/?)?$/, "")}`

/** An API key (or token) as sent in `Authorization: Bearer <key>`: printable, no spaces. */
const ApiKeyText = Schema.Redacted(
  Schema.String.check(
    Schema.makeFilter(
      (value: string) =>
        /^[\x21-\x7e]+$/.test(value) ||
        "must be an API key such as rk_... (printable characters, no spaces; the value is not shown)"
    )
  )
)

/** `ratings mcp`: the API its tools call, the key they call it with (none: anonymous), the branding. */
export const McpConfig = Config.all({
  apiUrl: Config.schema(ApiBaseUrl, "RATINGS_API_URL").pipe(Config.withDefault(new URL(DefaultApiUrl))),
  apiKey: Config.option(Config.schema(ApiKeyText, "RATINGS_API_KEY")),
  branding: BrandingConfig
})

export type McpConfig = Config.Success<typeof McpConfig>
