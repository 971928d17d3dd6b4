/**
 * How an explorer page becomes an answer: the document rendered to a string
 * by preact-render-to-string (which escapes every text and attribute value;
 * no HTML is written by hand), and the headers every page carries: its
 * Content-Security-Policy (this origin's style sheet and script only, forms
 * to this origin only, no framing), nosniff, frame denial and the referrer
 * policy. Pages vary with the caller's cookie, so they are private.
 */
import { HttpServerResponse } from "effect/http"
import type { Node } from "./Dom.ts"
import { renderToString } from "preact-render-to-string"

export const HtmlContentType = "text/html; charset=utf-8"

export const ExplorerPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
  "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

/** The headers of every explorer page (SecurityHeaders.ts adds nosniff and frame denial to all HTML too). */
export const PageHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": ExplorerPolicy,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cache-control": "private, no-cache",
  vary: "Authorization, Cookie"
}

/** The document of a page's root element. */
export const documentOf = (root: Node): string => `<!doctype html>\n${renderToString(root)}`

/** The UTF-8 bytes of a page (what the response cache stores). */
export const bytesOf = (root: Node): Uint8Array => Buffer.from(documentOf(root), "utf8")

/** A rendered page as an answer with the page headers (and any more). */
export const pageResponse = (
  body: Uint8Array,
  status = 200,
  headers: Readonly<Record<string, string>> = {}
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.uint8Array(body, {
    status,
    contentType: HtmlContentType,
    headers: { ...PageHeaders, ...headers }
  })
