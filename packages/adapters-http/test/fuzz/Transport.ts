/**
 * Sends a request exactly as generated, over node:http with keep-alive. Not
 * fetch: the WHATWG URL parser would normalise `..`, re-encode odd bytes and
 * refuse some header values, and the point is to send what a hostile or
 * careless client sends. A response that never comes (timeout) or a dropped
 * connection is reported as such, not retried.
 */
import { Agent, type IncomingHttpHeaders, request } from "node:http"
import { brotliDecompressSync, gunzipSync, inflateSync } from "node:zlib"

export interface RawRequest {
  readonly method: string
  readonly target: string
  /** A header given as an array is sent once per value. */
  readonly headers: { readonly [name: string]: string | ReadonlyArray<string> }
  readonly body: string | undefined
}

export type RawResponse =
  | {
      readonly _tag: "Response"
      readonly status: number
      readonly contentType: string | undefined
      readonly text: string
      readonly headers: IncomingHttpHeaders
    }
  | { readonly _tag: "TransportError"; readonly message: string }

const decode = (encoding: string | undefined, bytes: Buffer): Buffer => {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
      return gunzipSync(bytes)
    case "br":
      return brotliDecompressSync(bytes)
    case "deflate":
      return inflateSync(bytes)
    default:
      return bytes
  }
}

export class Transport {
  private readonly agent: Agent
  private readonly url: URL
  private readonly timeoutMs: number

  constructor(baseUrl: string, concurrency: number, timeoutMs = 15_000) {
    this.timeoutMs = timeoutMs
    this.url = new URL(baseUrl)
    this.agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  }

  send(req: RawRequest): Promise<RawResponse> {
    return new Promise((resolve) => {
      const headers: { [name: string]: string | Array<string> } = {}
      for (const [name, value] of Object.entries(req.headers))
        headers[name] = typeof value === "string" ? value : [...value]
      if (req.body !== undefined) headers["content-length"] = String(Buffer.byteLength(req.body))
      let settled = false
      const done = (r: RawResponse) => {
        if (!settled) {
          settled = true
          resolve(r)
        }
      }
      try {
        const outgoing = request(
          {
            host: this.url.hostname,
            port: this.url.port,
            method: req.method,
            path: req.target,
            headers,
            agent: this.agent,
            timeout: this.timeoutMs
          },
          (res) => {
            const chunks: Array<Buffer> = []
            res.on("data", (c: Buffer) => chunks.push(c))
            res.on("error", (e) => done({ _tag: "TransportError", message: `response: ${e.message}` }))
            res.on("end", () => {
              try {
                const bytes = decode(res.headers["content-encoding"], Buffer.concat(chunks))
                done({
                  _tag: "Response",
                  status: res.statusCode ?? 0,
                  contentType: res.headers["content-type"],
                  headers: res.headers,
                  text: bytes.toString("utf8")
                })
              } catch (e) {
                done({ _tag: "TransportError", message: `undecodable body: ${String(e)}` })
              }
            })
          }
        )
        outgoing.on("timeout", () => {
          outgoing.destroy(new Error(`no response within ${this.timeoutMs} ms`))
        })
        outgoing.on("error", (e) => done({ _tag: "TransportError", message: e.message }))
        outgoing.end(req.body)
      } catch (e) {
        // node:http refused to send it: a generator bug, reported like any other problem.
        done({ _tag: "TransportError", message: `not sendable: ${String(e)}` })
      }
    })
  }

  close(): void {
    this.agent.destroy()
  }
}
