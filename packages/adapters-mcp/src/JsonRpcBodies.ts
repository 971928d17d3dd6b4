/**
 * What the /mcp endpoint makes of a JSON-RPC body before the MCP transport
 * reads it, by the API's rules for JSON numbers: a number beyond a double
 * anywhere in it (`1e400`) makes it an invalid request (-32600, id null, its
 * data the API's `finite_number` entries; the API answers such bodies 422),
 * and nothing runs. A numeric id is echoed exactly as written, also when its
 * text does not survive a double (`9007199254740993`, `1.0`): the transport
 * gets the body with each such id replaced by a placeholder string of this
 * request, and each placeholder in its answer is replaced by the id's text.
 * A batch holding a request whose id is neither a string nor a number is an
 * invalid request as a whole (the transport answers such a request alone).
 */
import { randomUUID } from "node:crypto"
import { Stream } from "effect"
import { HttpBody, HttpServerResponse } from "effect/http"
import { nonFiniteIssues } from "@ratings/adapters-http/server/ErrorMapping"

/** JSON-RPC 2.0: "The JSON sent is not a valid Request object." */
const InvalidRequestCode = -32600

/** A JSON-RPC invalid request answering the whole body (id null), its data the `detail` entries saying why. */
const invalidRequest = (message: string, detail: ReadonlyArray<unknown>) =>
  HttpServerResponse.jsonUnsafe(
    { jsonrpc: "2.0", id: null, error: { code: InvalidRequestCode, message, data: { detail } } },
    { status: 400, headers: { "cache-control": "no-store" } }
  )

/** A body whose inexact ids were replaced, and how to put their text back into the answer. */
export interface ExactIds {
  readonly body: string
  readonly restore: (answer: string) => string
}

/** What becomes of a body: refused (the answer), or handed to the transport (with its inexact ids replaced). */
export type BodyCheck =
  | { readonly _tag: "Refused"; readonly answer: HttpServerResponse.HttpServerResponse }
  | { readonly _tag: "Accepted"; readonly ids: ExactIds | undefined }

const accepted: BodyCheck = { _tag: "Accepted", ids: undefined }

type Reviver = (this: unknown, key: string, value: unknown, context?: { readonly source?: string }) => unknown

const isRequest = (message: unknown): message is { id?: unknown } =>
  typeof message === "object" && message !== null && !Array.isArray(message) && "method" in message

/**
 * A POST body of /mcp, checked: refused when it holds a number beyond a
 * double, or when it is a batch holding a request whose id is neither a
 * string nor a number (MCP: never null; the transport answers such a request
 * alone with an invalid request, and in a batch could not echo it); else
 * accepted, with each request's numeric id whose text a double does not keep
 * replaced by a placeholder. A body that is not JSON is the transport's to
 * answer.
 */
export const checkBody = (text: string): BodyCheck => {
  const nonFinite = nonFiniteIssues(text)
  if (nonFinite.length > 0)
    return {
      _tag: "Refused",
      answer: invalidRequest(
        "Invalid Request: a number in the body is beyond the range of a double; JSON numbers must be " +
          "finite, within ±1.7976931348623157e308",
        nonFinite
      )
    }
  // Where each numeric `id` was written: by the object holding it, so that only the messages' own count.
  const written = new WeakMap<object, string>()
  const reviver: Reviver = function (key, value, context) {
    if (key === "id" && typeof value === "number" && context?.source !== undefined)
      written.set(this as object, context.source)
    return value
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text, reviver as (key: string, value: unknown) => unknown)
  } catch {
    return accepted
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed]
  if (Array.isArray(parsed)) {
    const badIds = parsed.flatMap((message, index) =>
      isRequest(message) &&
      "id" in message &&
      typeof message.id !== "string" &&
      typeof message.id !== "number"
        ? [
            {
              loc: ["body", index, "id"],
              msg: "a request's id must be a string or a number",
              input: message.id
            }
          ]
        : []
    )
    if (badIds.length > 0)
      return {
        _tag: "Refused",
        answer: invalidRequest(
          "Invalid Request: a request's id must be a string or a number, never null",
          badIds
        )
      }
  }
  const token = `mcp-id-${randomUUID()}-`
  const texts = new Map<string, string>()
  for (const message of messages) {
    if (!isRequest(message)) continue
    const source = written.get(message)
    if (typeof message.id !== "number" || source === undefined || JSON.stringify(message.id) === source)
      continue
    const placeholder = `${token}${texts.size}`
    texts.set(`"${placeholder}"`, source)
    message.id = placeholder
  }
  if (texts.size === 0) return accepted
  const placeholders = new RegExp(`"${token}\\d+"`, "g")
  return {
    _tag: "Accepted",
    ids: {
      body: JSON.stringify(parsed),
      restore: (answer) => answer.replace(placeholders, (quoted) => texts.get(quoted) ?? quoted)
    }
  }
}

const decoder = new TextDecoder()
const encoder = new TextEncoder()

/** The transport's answer with the ids' text put back (a JSON body, or an event stream). */
export const restoreIds = (
  response: HttpServerResponse.HttpServerResponse,
  ids: ExactIds
): HttpServerResponse.HttpServerResponse => {
  const body = response.body
  if (body._tag === "Uint8Array" && body.body.length > 0)
    return HttpServerResponse.setBody(
      response,
      HttpBody.text(ids.restore(decoder.decode(body.body)), body.contentType)
    )
  if (body._tag === "Stream") {
    // Each chunk is one whole event; a character split across chunks is kept whole by the streaming decoder.
    const chunks = new TextDecoder()
    return HttpServerResponse.setBody(
      response,
      HttpBody.stream(
        Stream.map(body.stream, (chunk) =>
          encoder.encode(ids.restore(chunks.decode(chunk, { stream: true })))
        ),
        body.contentType
      )
    )
  }
  return response
}
