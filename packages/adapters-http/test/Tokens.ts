/**
 * JWTs for the authentication tests: signed with any key and algorithm, with
 * any claims, so each refusal rule gets the exact bad token it names. Also a
 * real JWKS endpoint on loopback (node:http) whose key set can be rotated, made
 * to fail, or made to hang.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto"
import { createServer, type Server, type ServerResponse } from "node:http"
import { Context, Effect, Layer } from "effect"
import { exportJWK, type JWK, type JWTPayload, SignJWT } from "jose"
import type { DevKeyPair } from "../src/server/DevToken.ts"
import type { TestIdp } from "./TestServer.ts"

export const nowSeconds = (): number => Math.floor(Date.now() / 1000)

/** The claims of a valid admin token of the test identity provider, adjustable. */
export const adminClaims = (idp: TestIdp, overrides: JWTPayload = {}): JWTPayload => ({
  iss: idp.issuer,
  aud: idp.audience,
  sub: "ops@example",
  role: "admin",
  iat: nowSeconds(),
  exp: nowSeconds() + 600,
  ...overrides
})

/** Signs claims as given (no defaults added), with the header's alg and kid. */
export const sign = (
  claims: JWTPayload,
  key: KeyObject | Uint8Array,
  header: { readonly alg: string; readonly kid?: string | undefined } = { alg: "ES256" }
): Effect.Effect<string> =>
  Effect.promise(() =>
    new SignJWT(claims)
      .setProtectedHeader(
        header.kid === undefined ? { alg: header.alg } : { alg: header.alg, kid: header.kid }
      )
      .sign(key)
  )

export const privateKeyOf = (pair: DevKeyPair): KeyObject => createPrivateKey(pair.privateKeyPem)

/** An unsigned token (`alg: none`), which must never be accepted. */
export const unsecuredToken = (claims: JWTPayload): string => {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.`
}

/** The public JWK of a pair, as an identity provider publishes it. */
export const publicJwkOf = (pair: DevKeyPair, kid: string): Effect.Effect<JWK> =>
  Effect.promise(async () => ({
    ...(await exportJWK(createPublicKey(pair.publicKeyPem))),
    kid,
    alg: "ES256",
    use: "sig"
  }))

type JwksMode = "serve" | "fail" | "hang"

/** A JWKS endpoint on loopback, counting the fetches it answers. */
export class JwksServer extends Context.Service<
  JwksServer,
  {
    readonly url: string
    readonly setKeys: (keys: ReadonlyArray<JWK>) => void
    readonly setMode: (mode: JwksMode) => void
    /** Requests received, whatever the mode. */
    readonly fetches: () => number
  }
>()("@ratings/adapters-http/test/JwksServer") {
  static readonly layer = Layer.effect(
    JwksServer,
    Effect.gen(function* () {
      let keys: ReadonlyArray<JWK> = []
      let mode: JwksMode = "serve"
      let fetches = 0
      const hanging = new Set<ServerResponse>()
      const server = yield* Effect.acquireRelease(
        Effect.callback<Server>((resume) => {
          const s = createServer((_request, response) => {
            fetches++
            if (mode === "hang") {
              hanging.add(response)
              return
            }
            if (mode === "fail") {
              response.writeHead(500).end()
              return
            }
            response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys }))
          })
          s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
        }),
        (s) =>
          Effect.callback<void>((resume) => {
            for (const response of hanging) response.destroy()
            s.closeAllConnections()
            s.close(() => resume(Effect.void))
          })
      )
      const address = server.address()
      if (address === null || typeof address === "string") return yield* Effect.die("JWKS server has no port")
      return JwksServer.of({
        url: `http://127.0.0.1:${address.port}/.well-known/jwks.json`,
        setKeys: (next) => {
          keys = next
        },
        setMode: (next) => {
          mode = next
        },
        fetches: () => fetches
      })
    })
  )
}
