/**
 * Answers written on a socket itself, before or instead of Node's HTTP
 * machinery: the API's JSON body (`{"detail": "..."}`), never stored and
 * never sniffed, and the connection closed after it. They answer what Node
 * refuses before any route sees it (headers over its 16 KiB limit, a
 * malformed request line, a request not received in time: 431, 400, 408)
 * and a connection refused by its cap (429, 503), as the router answers its
 * errors (SecurityHeaders.ts).
 */
import type { ServerResponse } from "node:http"
import type { Socket } from "node:net"
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

/** A whole HTTP response with the API's JSON body, and `Connection: close`. */
export const rawAnswer = (status: number, reason: string, detail: string, extra = ""): string => {
  const body = JSON.stringify({ detail })
  return (
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nCache-Control: no-store\r\n` +
    `X-Content-Type-Options: nosniff\r\n${extra}Connection: close\r\n\r\n${body}`
  )
}

/** The response a connection is writing, if any (Node's own field, which its default answer reads too). */
type HttpSocket = Duplex & { readonly _httpMessage?: ServerResponse | null }

/**
 * Node's HTTP server's `clientError` listener. As Node does by default, an
 * answer is written only when no response of the connection is being
 * written (never after a response began, such as an export cut
 * mid-stream), and the socket is closed either way.
 */
export const onClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  const net = socket as HttpSocket
  const writing = net._httpMessage
  if (error.code !== "ECONNRESET" && net.writable && (writing == null || !writing.headersSent)) {
    net.end(rawAnswer(...answerOf(error.code)))
  }
  net.destroy()
}

/** How long a closed connection's client has to read the answer before the socket is destroyed. */
const CloseGraceMs = 500

/**
 * Closes a socket whose client may still be sending: our side ends at once,
 * and the socket is destroyed when the client ends too or after CloseGraceMs.
 * Destroying it at once, with the client's bytes still arriving, would reset
 * the connection and could lose the answer before the client reads it.
 */
export const closeGently = (socket: Socket): void => {
  if (socket.destroyed) return
  socket.end()
  const timer = setTimeout(() => socket.destroy(), CloseGraceMs)
  socket.once("close", () => clearTimeout(timer))
}

/** Answers a connection past a cap before any request of it is read, and closes it. */
export const refuseConnection = (socket: Socket, status: 429 | 503, detail: string): void => {
  socket.on("error", () => {})
  socket.write(
    rawAnswer(
      status,
      status === 429 ? "Too Many Requests" : "Service Unavailable",
      detail,
      "Retry-After: 1\r\nAccess-Control-Allow-Origin: *\r\n"
    )
  )
  // What the client sends meanwhile is discarded, so that it ends cleanly.
  socket.resume()
  closeGently(socket)
}
