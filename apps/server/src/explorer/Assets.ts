/**
 * The explorer's two static files, /assets/explorer.css and
 * /assets/explorer.js. Pages link them with their content's hash in the
 * query (`?v=`), so a link always names one version: asked with the current
 * hash a file is cached for a year, otherwise it is revalidated (its ETag).
 */
import { createHash } from "node:crypto"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { matchesIfNoneMatch } from "@ratings/adapters-http/server/Caching"
import { ExplorerScript } from "./Script.ts"
import { ExplorerCss } from "./Styles.ts"

interface Asset {
  readonly path: `/${string}`
  readonly body: Uint8Array
  readonly contentType: string
  readonly hash: string
}

const assetOf = (path: `/${string}`, text: string, contentType: string): Asset => {
  const body = Buffer.from(text, "utf8")
  const hash = createHash("sha256").update(body).digest("base64url").slice(0, 16)
  return { path, body, contentType, hash }
}

export const CssAsset = assetOf("/assets/explorer.css", ExplorerCss, "text/css; charset=utf-8")
export const ScriptAsset = assetOf("/assets/explorer.js", ExplorerScript, "text/javascript; charset=utf-8")

/** The URL a page links an asset by: its path and its content's hash. */
export const assetUrl = (asset: Asset): string => `${asset.path}?v=${asset.hash}`

const route = (asset: Asset) =>
  HttpRouter.add(
    "GET",
    asset.path,
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const etag = `"${asset.hash}"`
      const current = new URL(request.url, "http://x").searchParams.get("v") === asset.hash
      const headers = {
        etag,
        "cache-control": current ? "public, max-age=31536000, immutable" : "public, no-cache",
        "x-content-type-options": "nosniff"
      }
      if (matchesIfNoneMatch(request.headers["if-none-match"], etag))
        return HttpServerResponse.empty({ status: 304, headers })
      return HttpServerResponse.uint8Array(asset.body, { contentType: asset.contentType, headers })
    })
  )

export const AssetRoutes = Layer.mergeAll(route(CssAsset), route(ScriptAsset))
