/**
 * The Node HTTP server the API runs on. Requests Node refuses before any
 * route sees them (headers over its 16 KiB limit, a malformed request line, a
 * request not received in time) get the API's JSON error body instead of
 * Node's empty answer: `{"detail": "..."}` with 431, 400 or 408.
 *
 * As Node does by default, an answer is written only on a socket nothing has
 * been written to yet (never after a response began, such as an export cut
 * mid-stream), and the socket is closed either way.
 */
import { createServer as createNodeServer, type Server } from "node:http"
import type { Duplex } from "node:stream"

const answerOf = (code: string | undefined): readonly [number, string, string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [
        431,
        "Request Header Fields Too Large",
        "request headers too large: the request line and headers must stay under 16 KiB"
      ]
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "Request Timeout", "request not received in time"]
    default:
      return [400, "Bad Request", "malformed HTTP request"]
  }
}

export const onClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  const net = socket as Duplex & { readonly bytesWritten?: number }
  if (error.code !== "ECONNRESET" && net.writable && (net.bytesWritten ?? 0) === 0) {
    const [status, reason, detail] = answerOf(error.code)
    const body = JSON.stringify({ detail })
    net.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
    )
  }
  net.destroy()
}

/** `http.createServer` with the API's answers to requests Node refuses itself. */
export const createServer = (): Server => {
  const server = createNodeServer()
  server.on("clientError", onClientError)
  return server
}
