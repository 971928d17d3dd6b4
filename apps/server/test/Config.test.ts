/**
 * The server's configuration is checked strictly at start (issue 13, point
 * 14): a value the parser does not understand stops the start with a message
 * naming the variable, instead of silently meaning false; NODE_ENV takes only
 * its three values; secrets are never echoed. And the development identity
 * provider is on only under an explicit NODE_ENV=development or test
 * (point 10).
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Option, Result } from "effect"
import { DefaultBranding } from "@ratings/domain/model/ServiceInfo"
import { BrandingSettings } from "../src/BrandingConfig.ts"
import { ServerConfig } from "../src/Config.ts"
import { clientBaseOf, McpConfig } from "../src/McpConfig.ts"
import { WebhookDeliveryConfig, WebhookTargetsConfig } from "../src/WebhookConfig.ts"
import { devIdentityProviderStatus } from "@ratings/adapters-http/server/DevIdentityProvider"
import { DefaultConnectionLimits } from "@ratings/adapters-http/server/front/NodeServer"
import { ProductionMcpSessionLimits } from "@ratings/adapters-http/server/limits/RateLimit"
import { checkIdentityProvider, httpOptions } from "../src/HttpOptions.ts"

const load = (env: Record<string, string>) =>
  Effect.runSync(Effect.result(ServerConfig.parse(ConfigProvider.fromEnv({ env }))))

const config = (env: Record<string, string>) => {
  const result = load(env)
  if (Result.isFailure(result)) throw new Error(`expected a configuration, got ${String(result.failure)}`)
  return result.success
}

const refusal = (env: Record<string, string>): string => {
  const result = load(env)
  assert.isTrue(Result.isFailure(result), `expected ${JSON.stringify(env)} to be refused`)
  return String((result as Result.Failure<unknown, unknown>).failure)
}

describe("configuration", () => {
  it("TRUST_PROXY takes true, false (any case) or a hop count; yes, TRUE-ish words and other text stop the start naming TRUST_PROXY", () => {
    assert.strictEqual(config({}).trustProxy, false)
    assert.strictEqual(config({ TRUST_PROXY: "true" }).trustProxy, true)
    assert.strictEqual(config({ TRUST_PROXY: "TRUE" }).trustProxy, true)
    assert.strictEqual(config({ TRUST_PROXY: "False" }).trustProxy, false)
    assert.strictEqual(config({ TRUST_PROXY: "2" }).trustProxy, 2)
    assert.strictEqual(config({ TRUST_PROXY: "0" }).trustProxy, false)
    for (const value of ["yes", "on", "2 hops", "-1", "1.5", " "]) {
      const message = refusal({ TRUST_PROXY: value })
      assert.include(message, "TRUST_PROXY")
      assert.include(message, "must be true, false or a number of proxy hops")
    }
  })

  it("boolean settings take true, false, 1 or 0 in any case; anything else stops the start naming the variable", () => {
    assert.strictEqual(config({}).loadDemo, true)
    assert.strictEqual(config({ RATINGS_LOAD_DEMO: "FALSE" }).loadDemo, false)
    assert.strictEqual(config({ RATINGS_LOAD_DEMO: "0" }).loadDemo, false)
    assert.strictEqual(config({ RATINGS_LOAD_DEMO: "True" }).loadDemo, true)
    for (const value of ["yes", "no", "off", "maybe"]) {
      const message = refusal({ RATINGS_LOAD_DEMO: value })
      assert.include(message, "RATINGS_LOAD_DEMO")
      assert.include(message, "must be true or false")
    }
  })

  it("NODE_ENV is production, development or test exactly; Production, prod or staging stop the start naming NODE_ENV", () => {
    assert.isTrue(Option.isNone(config({}).environment))
    assert.deepStrictEqual(config({ NODE_ENV: "production" }).environment, Option.some("production"))
    assert.deepStrictEqual(config({ NODE_ENV: "test" }).environment, Option.some("test"))
    for (const value of ["Production", "prod", "staging", "DEVELOPMENT", " "]) {
      const message = refusal({ NODE_ENV: value })
      assert.include(message, "NODE_ENV")
      assert.include(message, "must be production, development or test")
    }
  })

  it("a malformed DATABASE_URL or REDIS_URL stops the start naming the variable, without printing the value (it may hold a password)", () => {
    const secret = "hunter2-secret"
    for (const [name, value] of [
      ["DATABASE_URL", `mysql://admin:${secret}@db/x`],
      ["DATABASE_URL", `admin:${secret}`],
      ["REDIS_URL", `http://:${secret}@cache:6379`]
    ] as const) {
      const message = refusal({ [name]: value })
      assert.include(message, name)
      assert.include(message, "must be a URL such as")
      assert.notInclude(message, secret)
    }
    assert.isTrue(Option.isSome(config({ DATABASE_URL: "postgresql://u:p@h:5432/d" }).databaseUrl))
  })

  it("HOST and RATINGS_DATA_DIR must not be blank (an empty variable counts as unset); RATINGS_SHUTDOWN_GRACE is a positive duration, 20 seconds by default", () => {
    assert.include(refusal({ HOST: " " }), "HOST")
    assert.include(refusal({ RATINGS_DATA_DIR: " " }), "RATINGS_DATA_DIR")
    assert.strictEqual(Duration.toMillis(config({}).shutdownGrace), 20_000)
    assert.strictEqual(
      Duration.toMillis(config({ RATINGS_SHUTDOWN_GRACE: "5 seconds" }).shutdownGrace),
      5_000
    )
    for (const value of ["0 seconds", "soon", "-1 seconds"]) {
      assert.include(refusal({ RATINGS_SHUTDOWN_GRACE: value }), "RATINGS_SHUTDOWN_GRACE")
    }
  })
})

/** An allowance the server's policies get from the environment: its one window's limit and seconds. */
const allowanceOf = (field: "contacts" | "mcpSessions") => (env: Record<string, string>) => {
  const [w] = httpOptions(config(env)).policies[field] ?? []
  return [w!.limit, Duration.toSeconds(Duration.fromInputUnsafe(w!.window))]
}

describe("the coverage-request allowance", () => {
  it("RATINGS_CONTACTS_LIMIT (1 to 10000) per RATINGS_CONTACTS_WINDOW (at least a second) is 5 an hour by default and reaches the server's policies; other values stop the start naming the variable", () => {
    const windowOf = allowanceOf("contacts")
    assert.deepStrictEqual(windowOf({}), [5, 3600])
    assert.deepStrictEqual(
      windowOf({ RATINGS_CONTACTS_LIMIT: "20", RATINGS_CONTACTS_WINDOW: "1 day" }),
      [20, 86_400]
    )
    for (const value of ["0", "-1", "2.5", "many", "10001"]) {
      const message = refusal({ RATINGS_CONTACTS_LIMIT: value })
      assert.include(message, "RATINGS_CONTACTS_LIMIT")
    }
    assert.include(refusal({ RATINGS_CONTACTS_LIMIT: "0" }), "must be a whole number from 1 to 10000")
    for (const value of ["0 seconds", "500 millis", "soon", "-1 hours"]) {
      assert.include(refusal({ RATINGS_CONTACTS_WINDOW: value }), "RATINGS_CONTACTS_WINDOW")
    }
    assert.include(refusal({ RATINGS_CONTACTS_WINDOW: "500 millis" }), "at least 1 second")
  })
})

describe("the MCP-session allowance", () => {
  it("RATINGS_MCP_SESSIONS_LIMIT (1 to 10000) per RATINGS_MCP_SESSIONS_WINDOW (at least a second) is 60 an hour by default and reaches the server's policies; other values stop the start naming the variable", () => {
    const windowOf = allowanceOf("mcpSessions")
    assert.deepStrictEqual(windowOf({}), [60, 3600])
    assert.deepStrictEqual(windowOf({}), [
      ProductionMcpSessionLimits[0]!.limit,
      Duration.toSeconds(Duration.fromInputUnsafe(ProductionMcpSessionLimits[0]!.window))
    ])
    assert.deepStrictEqual(
      windowOf({ RATINGS_MCP_SESSIONS_LIMIT: "500", RATINGS_MCP_SESSIONS_WINDOW: "10 minutes" }),
      [500, 600]
    )
    for (const value of ["0", "-1", "2.5", "many", "10001"])
      assert.include(refusal({ RATINGS_MCP_SESSIONS_LIMIT: value }), "RATINGS_MCP_SESSIONS_LIMIT")
    assert.include(refusal({ RATINGS_MCP_SESSIONS_LIMIT: "0" }), "must be a whole number from 1 to 10000")
    for (const value of ["0 seconds", "500 millis", "soon", "-1 hours"])
      assert.include(refusal({ RATINGS_MCP_SESSIONS_WINDOW: value }), "RATINGS_MCP_SESSIONS_WINDOW")
  })
})

describe("request timeouts and connection caps (issue 23 point 3)", () => {
  const connectionsOf = (env: Record<string, string>) => httpOptions(config(env)).connections

  it("RATINGS_HEADERS_TIMEOUT and RATINGS_REQUEST_TIMEOUT (at least a second, headers not longer than the request) are 20 and 30 seconds by default and reach the server; other values stop the start naming the variable", () => {
    assert.deepInclude(connectionsOf({}), {
      headersTimeoutMs: DefaultConnectionLimits.headersTimeoutMs,
      requestTimeoutMs: DefaultConnectionLimits.requestTimeoutMs
    })
    assert.deepInclude(connectionsOf({}), { headersTimeoutMs: 20_000, requestTimeoutMs: 30_000 })
    assert.deepInclude(
      connectionsOf({ RATINGS_HEADERS_TIMEOUT: "5 seconds", RATINGS_REQUEST_TIMEOUT: "2 minutes" }),
      { headersTimeoutMs: 5_000, requestTimeoutMs: 120_000 }
    )
    for (const name of ["RATINGS_HEADERS_TIMEOUT", "RATINGS_REQUEST_TIMEOUT"])
      for (const value of ["0 seconds", "500 millis", "soon", "-1 seconds", "Infinity"])
        assert.include(refusal({ [name]: value }), name, `${name}=${value}`)
    const longer = refusal({ RATINGS_HEADERS_TIMEOUT: "40 seconds" })
    assert.include(longer, "RATINGS_HEADERS_TIMEOUT")
    assert.include(longer, "RATINGS_REQUEST_TIMEOUT")
  })

  it("RATINGS_MAX_CONNECTIONS_PER_ADDRESS is 256 by default and RATINGS_MAX_CONNECTIONS none (0); 0 turns a cap off; other values stop the start naming the variable", () => {
    assert.deepInclude(connectionsOf({}), { maxConnectionsPerAddress: 256, maxConnections: 0 })
    assert.deepInclude(
      connectionsOf({ RATINGS_MAX_CONNECTIONS_PER_ADDRESS: "0", RATINGS_MAX_CONNECTIONS: "5000" }),
      { maxConnectionsPerAddress: 0, maxConnections: 5_000 }
    )
    for (const name of ["RATINGS_MAX_CONNECTIONS_PER_ADDRESS", "RATINGS_MAX_CONNECTIONS"])
      for (const value of ["-1", "2.5", "many", "1000001"]) {
        const message = refusal({ [name]: value })
        assert.include(message, name, `${name}=${value}`)
        if (value === "-1" || value === "1000001")
          assert.include(message, "must be a whole number from 0 (no cap) to 1000000")
      }
  })
})

describe("operator branding (issue 17)", () => {
  it("unset, the branding is the default one exactly; set, each value is the operator's, surrounding spaces dropped", () => {
    assert.deepStrictEqual(config({}).branding, DefaultBranding)
    assert.deepStrictEqual(
      config({ RATINGS_SERVICE_NAME: "" }).branding,
      DefaultBranding,
      "empty counts as unset"
    )
    const b = config({
      RATINGS_SERVICE_NAME: "  Acme Risk Desk ",
      RATINGS_FRAMEWORK_NAME: "Acme Rahmenwerk für Risiken",
      RATINGS_SITE_URL: "https://risk.acme.example/ratings/",
      RATINGS_TERMS_URL: "http://legal.acme.example/terms?v=3#agents",
      RATINGS_ATTRIBUTION: "Ratings by Acme Risk Desk."
    }).branding
    assert.deepStrictEqual(b, {
      serviceName: "Acme Risk Desk",
      frameworkName: "Acme Rahmenwerk für Risiken",
      siteUrl: "https://risk.acme.example/ratings/",
      methodologyUrl: "https://risk.acme.example/ratings/methodology",
      termsUrl: "http://legal.acme.example/terms?v=3#agents",
      attribution: "Ratings by Acme Risk Desk."
    })
    const derived = config({
      RATINGS_SERVICE_NAME: "Acme",
      RATINGS_SITE_URL: "https://acme.example"
    }).branding
    assert.strictEqual(derived.frameworkName, "Acme Methodology")
    assert.strictEqual(derived.termsUrl, "https://acme.example/terms#automated-access")
    assert.include(derived.attribution, "Data source: Acme (https://acme.example).")
  })

  it("each invalid branding value stops the start with a message naming its variable", () => {
    const cases: ReadonlyArray<readonly [keyof typeof BrandingSettings, string, string]> = [
      ["serviceName", " ", "must not be empty"],
      ["serviceName", "x".repeat(101), "at most 100 characters"],
      ["serviceName", "Acme\r\nSet-Cookie: a=b", "printable ASCII"],
      ["serviceName", "Acme\tDesk", "printable ASCII"],
      ["serviceName", "Ærø Ratings", "printable ASCII"],
      ["frameworkName", "\t ", "must not be empty"],
      ["frameworkName", "Acme\nFramework", "control characters"],
      ["frameworkName", "Acme\u0085Framework", "control characters"],
      ["frameworkName", "y".repeat(201), "at most 200 characters"],
      ["attribution", "Data: Acme\r\nX-Evil: 1", "printable ASCII"],
      ["attribution", "Données: Acme", "printable ASCII"],
      ["attribution", "z".repeat(1_001), "at most 1000 characters"],
      ["siteUrl", "acme.example", "absolute http or https URL"],
      ["siteUrl", "/ratings", "absolute http or https URL"],
      ["siteUrl", "ftp://acme.example", "http or https URL"],
      ["siteUrl", "javascript:alert(1)", "http or https URL"],
      ["siteUrl", "https://acme.example/a b", "URL characters only"],
      ["siteUrl", 'https://acme.example/"><script>', "URL characters only"],
      ["siteUrl", "https://acme.example/>; rel=evil", "URL characters only"],
      ["siteUrl", "https://user:secret@acme.example", "user name or password"],
      ["siteUrl", "https://acme.example/?ref=x", "no query or fragment"],
      ["siteUrl", "https://acme.example/#top", "no query or fragment"],
      ["siteUrl", `https://acme.example/${"p".repeat(2_000)}`, "at most 2000 characters"],
      ["termsUrl", "terms.html", "absolute http or https URL"],
      ["termsUrl", "https://acme.example/terms\r\nX: y", "URL characters only"],
      ["termsUrl", "mailto:legal@acme.example", "http or https URL"]
    ]
    for (const [setting, value, reason] of cases) {
      const name = BrandingSettings[setting]
      const message = refusal({ [name]: value })
      assert.include(message, name, `${name}=${JSON.stringify(value)}`)
      assert.include(message, reason, `${name}=${JSON.stringify(value)}`)
    }
  })
})

describe("test-only webhook settings", () => {
  const delivery = (env: Record<string, string>) =>
    Effect.runSync(Effect.result(WebhookDeliveryConfig.parse(ConfigProvider.fromEnv({ env }))))

  it("RATINGS_WEBHOOK_RETRY_SCALE and RATINGS_WEBHOOK_LEASE are honoured only under NODE_ENV=test; elsewhere the start stops saying what NODE_ENV is", () => {
    const scaled = delivery({
      NODE_ENV: "test",
      RATINGS_WEBHOOK_RETRY_SCALE: "0.001",
      RATINGS_WEBHOOK_LEASE: "35 seconds"
    })
    assert.isTrue(Result.isSuccess(scaled))
    if (Result.isSuccess(scaled)) {
      assert.deepStrictEqual(scaled.success.retryScale, Option.some(0.001))
      assert.strictEqual(Duration.toMillis(Option.getOrThrow(scaled.success.lease)), 35_000)
    }
    const refusal = (env: Record<string, string>) => {
      const result = delivery(env)
      assert.isTrue(Result.isFailure(result), `expected ${JSON.stringify(env)} to be refused`)
      return String((result as Result.Failure<unknown, unknown>).failure)
    }
    assert.include(
      refusal({ NODE_ENV: "production", RATINGS_WEBHOOK_RETRY_SCALE: "0.001" }),
      'RATINGS_WEBHOOK_RETRY_SCALE is a setting only tests use: it is honoured only when NODE_ENV=test (NODE_ENV is "production")'
    )
    assert.include(
      refusal({ RATINGS_WEBHOOK_LEASE: "35 seconds" }),
      "RATINGS_WEBHOOK_LEASE is a setting only tests use"
    )
    assert.include(refusal({ RATINGS_WEBHOOK_LEASE: "35 seconds" }), "(NODE_ENV is unset)")
  })
})

describe("webhook target policy", () => {
  const policy = (env: Record<string, string>) =>
    Effect.runSync(WebhookTargetsConfig.parse(ConfigProvider.fromEnv({ env })))

  it("plain http webhook URLs are allowed only under NODE_ENV=development exactly; unset, test or production require https", () => {
    assert.isFalse(policy({ NODE_ENV: "development" }).requireHttps)
    assert.isTrue(policy({}).requireHttps)
    assert.isTrue(policy({ NODE_ENV: "production" }).requireHttps)
    assert.isTrue(policy({ NODE_ENV: "test" }).requireHttps)
  })
})

describe("identity provider settings", () => {
  const problem = (env: Record<string, string>): string => {
    const result = Effect.runSync(Effect.result(checkIdentityProvider(httpOptions(config(env)).auth)))
    assert.isTrue(Result.isFailure(result), `expected ${JSON.stringify(env)} to be refused`)
    return (result as Result.Failure<unknown, { readonly message: string }>).failure.message
  }

  it("a faulty RATINGS_JWT_* setting stops the start with a message naming the variable", () => {
    const base = { RATINGS_JWT_ISSUER: "idp", RATINGS_JWT_AUDIENCE: "api" }
    assert.strictEqual(
      problem({ ...base, RATINGS_JWT_JWKS_URL: "http://idp.example/jwks.json" }),
      "RATINGS_JWT_JWKS_URL must use https (plain http only on loopback)"
    )
    assert.strictEqual(
      problem({ RATINGS_JWT_JWKS_URL: "https://idp.example/jwks.json", RATINGS_JWT_AUDIENCE: "api" }),
      "RATINGS_JWT_ISSUER is required"
    )
    assert.include(problem({ ...base, RATINGS_JWT_PUBLIC_KEY: "not a key" }), "RATINGS_JWT_PUBLIC_KEY")
    assert.include(
      problem({
        ...base,
        RATINGS_JWT_JWKS_URL: "https://idp.example/jwks.json",
        RATINGS_JWT_ALGORITHMS: "none"
      }),
      "RATINGS_JWT_ALGORITHMS"
    )
    const fine = { ...base, RATINGS_JWT_JWKS_URL: "https://idp.example/jwks.json" }
    assert.isUndefined(config(base).jwt, "no JWKS URL and no public key: no identity provider")
    assert.deepStrictEqual(config({ ...fine, RATINGS_JWT_ALGORITHMS: "ES256, RS256" }).jwt?.algorithms, [
      "ES256",
      "RS256"
    ])
    assert.isTrue(
      Result.isSuccess(Effect.runSync(Effect.result(checkIdentityProvider(httpOptions(config(fine)).auth))))
    )
  })
})

describe("development identity provider", () => {
  it("is on only with NODE_ENV exactly development or test, and never beside a configured RATINGS_JWT_* provider", () => {
    assert.isFalse(devIdentityProviderStatus(config({})).on, "unset NODE_ENV: off")
    assert.isFalse(devIdentityProviderStatus(config({ NODE_ENV: "production" })).on)
    assert.isTrue(devIdentityProviderStatus(config({ NODE_ENV: "development" })).on)
    assert.isTrue(devIdentityProviderStatus(config({ NODE_ENV: "test" })).on)
    const withProvider = config({
      NODE_ENV: "development",
      RATINGS_JWT_JWKS_URL: "https://idp.example/jwks.json",
      RATINGS_JWT_ISSUER: "idp",
      RATINGS_JWT_AUDIENCE: "api"
    })
    assert.isFalse(devIdentityProviderStatus(withProvider).on)
    assert.include(devIdentityProviderStatus(config({})).reason, "NODE_ENV is unset")
  })
})

describe("ratings mcp configuration (McpConfig)", () => {
  const mcp = (env: Record<string, string>) =>
    Effect.runSync(Effect.result(McpConfig.parse(ConfigProvider.fromEnv({ env }))))

  it("RATINGS_API_URL is the API's base ending in /api/v1 (default http://localhost:8080/api/v1) or a bare origin; the typed client is given what precedes /api/v1", () => {
    const base = (env: Record<string, string>) => {
      const result = mcp(env)
      if (Result.isFailure(result)) throw new Error(String(result.failure))
      return clientBaseOf(result.success.apiUrl)
    }
    assert.strictEqual(base({}), "http://localhost:8080")
    assert.strictEqual(base({ RATINGS_API_URL: "https://ratings.example/api/v1" }), "https://ratings.example")
    assert.strictEqual(
      base({ RATINGS_API_URL: "https://ratings.example/api/v1/" }),
      "https://ratings.example"
    )
    assert.strictEqual(
      base({ RATINGS_API_URL: "https://example.org/ratings/api/v1" }),
      "https://example.org/ratings"
    )
    assert.strictEqual(base({ RATINGS_API_URL: "http://127.0.0.1:9000" }), "http://127.0.0.1:9000")
    for (const url of [
      "ftp://ratings.example/api/v1",
      "https://ratings.example/api/v2",
      "https://ratings.example/v1",
      "https://user:secret@ratings.example/api/v1",
      "https://ratings.example/api/v1?key=1",
      "ratings.example"
    ]) {
      const result = mcp({ RATINGS_API_URL: url })
      assert.isTrue(Result.isFailure(result), url)
      const message = String((result as Result.Failure<unknown, unknown>).failure)
      assert.include(message, "RATINGS_API_URL", url)
      assert.notInclude(message, "secret", url)
    }
  })

  it("RATINGS_API_KEY is optional, kept redacted, and refused (without being shown) when it holds spaces or control characters", () => {
    const none = mcp({})
    assert.isTrue(Result.isSuccess(none) && Option.isNone(none.success.apiKey))
    const keyed = mcp({ RATINGS_API_KEY: "rk_abc-DEF_123" })
    assert.isTrue(Result.isSuccess(keyed))
    assert.notInclude(
      String((keyed as Result.Success<{ apiKey: unknown }, unknown>).success.apiKey),
      "rk_abc"
    )
    for (const key of ["rk_abc def", "rk_abc\nX-Injected: 1"]) {
      const result = mcp({ RATINGS_API_KEY: key })
      assert.isTrue(Result.isFailure(result), JSON.stringify(key))
      const message = String((result as Result.Failure<unknown, unknown>).failure)
      assert.include(message, "RATINGS_API_KEY")
      assert.notInclude(message, "rk_abc")
    }
  })
})

describe("the shared rate-limit store's outages (issue 23 point 10)", () => {
  it("RATINGS_REDIS_TIMEOUT (100 ms by default, at most 5 seconds) and RATINGS_*_LIMIT_ON_STORE_FAILURE (open or closed per kind of limit; by default only coverage requests fail closed) reach the server's policies; other values stop the start naming the variable", () => {
    const policies = (env: Record<string, string>) => httpOptions(config(env)).policies
    const byDefault = policies({})
    assert.strictEqual(Duration.toMillis(Duration.fromInputUnsafe(byDefault.storeTimeout!)), 250)
    assert.deepStrictEqual(byDefault.onStoreFailure, {
      requests: "open",
      failedCredentials: "open",
      contacts: "closed",
      mcpSessions: "open"
    })
    const set = policies({
      RATINGS_REDIS_TIMEOUT: "50 millis",
      RATINGS_REQUESTS_LIMIT_ON_STORE_FAILURE: "closed",
      RATINGS_FAILED_CREDENTIALS_LIMIT_ON_STORE_FAILURE: "Closed",
      RATINGS_CONTACTS_LIMIT_ON_STORE_FAILURE: "open",
      RATINGS_MCP_SESSIONS_LIMIT_ON_STORE_FAILURE: "CLOSED"
    })
    assert.strictEqual(Duration.toMillis(Duration.fromInputUnsafe(set.storeTimeout!)), 50)
    assert.deepStrictEqual(set.onStoreFailure, {
      requests: "closed",
      failedCredentials: "closed",
      contacts: "open",
      mcpSessions: "closed"
    })
    for (const value of ["0 millis", "soon", "6 seconds", "1 minute"]) {
      assert.include(refusal({ RATINGS_REDIS_TIMEOUT: value }), "RATINGS_REDIS_TIMEOUT", value)
    }
    assert.include(refusal({ RATINGS_REDIS_TIMEOUT: "10 seconds" }), "must be at most 5 seconds")
    for (const name of [
      "RATINGS_REQUESTS_LIMIT_ON_STORE_FAILURE",
      "RATINGS_FAILED_CREDENTIALS_LIMIT_ON_STORE_FAILURE",
      "RATINGS_CONTACTS_LIMIT_ON_STORE_FAILURE",
      "RATINGS_MCP_SESSIONS_LIMIT_ON_STORE_FAILURE"
    ]) {
      for (const value of ["true", "fail-open", "deny", " "]) {
        const message = refusal({ [name]: value })
        assert.include(message, name, value)
        assert.include(message, "must be open or closed", value)
      }
    }
  })
})
