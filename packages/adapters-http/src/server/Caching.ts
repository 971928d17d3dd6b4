/**
 * HTTP caching of reads (RFC 9110 section 13, RFC 9111): a successful GET
 * gets a strong ETag (a digest of its body, unless the response carries one),
 * a matching If-None-Match turns it into a 304; anonymous answers are
 * `public, max-age=60`, answers to callers with credentials `private`, all
 * `Vary: Authorization` (the same URL answers differently by tier). Errors
 * are never stored: SecurityHeaders.ts marks them `no-store`.
 */
import { createHash } from "node:crypto"
import { type Caller, callerKind } from "@ratings/domain/model/Caller"
import { Effect } from "effect"
import { Headers, HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"

export const PublicCacheControl = "public, max-age=60"
export const PrivateCacheControl = "private, max-age=60"
export const NoStore = "no-store"

/** A strong entity tag of some bytes. */
export const entityTag = (bytes: Uint8Array | string): string =>
  `"${createHash("sha256").update(bytes).digest("base64url").slice(0, 27)}"`

const EntityTagPattern = /(?:W\/)?"[^"]*"/g

const opaqueTag = (tag: string): string => (tag.startsWith("W/") ? tag.slice(2) : tag)

/**
 * Whether `If-None-Match` names the current representation (RFC 9110
 * 13.1.2): `*`, or any listed tag equal to ours under weak comparison (the
 * `W/` prefix ignored on both sides).
 */
export const matchesIfNoneMatch = (header: string | undefined, etag: string): boolean => {
  if (header === undefined) return false
  if (header.trim() === "*") return true
  const ours = opaqueTag(etag)
  return (header.match(EntityTagPattern) ?? []).some((tag) => opaqueTag(tag) === ours)
}

/** Adds a member to `Vary` unless it is there already (or `*`). */
export const varyWith = (vary: string | undefined, member: string): string => {
  if (vary === undefined || vary.trim() === "") return member
  const members = vary.split(",").map((m) => m.trim().toLowerCase())
  return members.includes("*") || members.includes(member.toLowerCase()) ? vary : `${vary}, ${member}`
}

export const cacheControlFor = (caller: Caller): string =>
  callerKind(caller) === "anonymous" ? PublicCacheControl : PrivateCacheControl

const bodyTag = (response: HttpServerResponse.HttpServerResponse): string | undefined => {
  const etag = response.headers.etag
  if (etag !== undefined) return etag
  return response.body._tag === "Uint8Array" ? entityTag(response.body.body) : undefined
}

/** The 304 for a response: its headers (validators, Cache-Control, Vary and the rest), no body. */
const notModified = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.empty({
    status: 304,
    headers: Headers.removeMany(response.headers, ["content-type", "content-length"])
  })

/** The caching headers of a response to `request`, or the 304 it becomes. */
export const cacheResponse = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  cacheControl: string
): HttpServerResponse.HttpServerResponse => {
  if (response.status !== 200 || (request.method !== "GET" && request.method !== "HEAD")) return response
  const etag = bodyTag(response)
  if (etag === undefined) return response
  const cacheable = HttpServerResponse.setHeaders(response, {
    etag,
    "cache-control": cacheControl,
    vary: varyWith(response.headers.vary, "Authorization")
  })
  return matchesIfNoneMatch(request.headers["if-none-match"], etag) ? notModified(cacheable) : cacheable
}

/** Applies the caching rules to whatever response the request ends with. */
export const cacheHeaders = (
  caller: Caller
): Effect.Effect<void, never, HttpServerRequest.HttpServerRequest> => {
  const cacheControl = cacheControlFor(caller)
  return HttpEffect.appendPreResponseHandler((request, response) =>
    Effect.succeed(cacheResponse(request, response, cacheControl))
  )
}
