/**
 * The connections of a server. The gate, a net.Server, is what listens: it
 * admits each new connection or refuses it, when its address (or the server)
 * has its cap open, with a 429 (503) on the raw socket before any request of
 * it is read, logged once until the count falls to half; it hands each
 * admitted one to Node's HTTP server (its `connection` event, Node's way to
 * give it a connection). Each admitted connection is followed until it
 * closes, with its requests in flight, for the drain (Drain.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import { Server as NetServer, type Socket } from "node:net"
import { refuseConnection } from "./RawAnswers.ts"

/** The caps on the connections open at once: per socket address, and in all (0: no cap). */
export interface Caps {
  readonly maxConnectionsPerAddress: number
  readonly maxConnections: number
  /** Told, in a line for the log, when an address (or the server) reaches its cap. */
  readonly onCapped: ((line: string) => void) | undefined
}

/** A server's open connections, and how many requests each has in flight and has served. */
export class Connections {
  readonly sockets = new Map<Socket, { inFlight: number; served: number }>()
  /** Open connections per remote address, while the per-address cap is on. */
  readonly perAddress = new Map<string, number>()
  /** The addresses (and "*", the server) that reached their cap and were logged, until they fall to half. */
  readonly capped = new Set<string>()
  /** Set by the drain: every response from then on closes its connection. */
  draining = false
}

/** Counts a request in flight on its connection until its response closes. */
export const trackRequest = (c: Connections, request: IncomingMessage, response: ServerResponse): void => {
  const state = c.sockets.get(request.socket as Socket)
  if (state !== undefined) {
    state.inFlight++
    // `close` follows `finish` (the last byte handed to the OS) or a lost connection.
    response.once("close", () => {
      state.inFlight--
      state.served++
    })
  }
  // Before anyone answers, so a response during a drain is written with `Connection: close`.
  if (c.draining) response.shouldKeepAlive = false
}

/** Refuses a connection past the server's cap, logging it the first time. */
const refuseOverTotal = (c: Connections, caps: Caps, socket: Socket): false => {
  if (!c.capped.has("*")) {
    c.capped.add("*")
    caps.onCapped?.(
      `connections: the server has ${caps.maxConnections} connections open, its cap; new ones are answered 503 until it falls to half`
    )
  }
  refuseConnection(socket, 503, `the server has too many open connections: retry in a moment`)
  return false
}

/** Refuses a connection past its address's cap, logging it the first time. */
const refuseOverAddress = (c: Connections, caps: Caps, socket: Socket, address: string): false => {
  const cap = caps.maxConnectionsPerAddress
  if (!c.capped.has(address)) {
    c.capped.add(address)
    caps.onCapped?.(
      `connections: ${address} has ${cap} connections open, the cap per address; its new ones are answered 429 until it falls to half`
    )
  }
  refuseConnection(
    socket,
    429,
    `too many open connections from this address: at most ${cap} at once; close one and retry`
  )
  return false
}

/**
 * Admits a new connection, or answers it and closes it when its address
 * (or the server) has its cap of connections open: O(1), counted per
 * connection, nothing per request.
 */
export const admit = (c: Connections, caps: Caps, socket: Socket): boolean => {
  const total = caps.maxConnections
  const cap = caps.maxConnectionsPerAddress
  const address = socket.remoteAddress
  if (total > 0 && c.sockets.size >= total) return refuseOverTotal(c, caps, socket)
  const open = cap > 0 && address !== undefined ? (c.perAddress.get(address) ?? 0) : -1
  if (open >= cap && open !== -1) return refuseOverAddress(c, caps, socket, address!)
  const state = { inFlight: 0, served: 0 }
  c.sockets.set(socket, state)
  if (open !== -1) c.perAddress.set(address!, open + 1)
  socket.once("close", () => {
    c.sockets.delete(socket)
    if (c.capped.size > 0 && c.capped.has("*") && c.sockets.size <= total / 2) c.capped.delete("*")
    if (open === -1) return
    const left = (c.perAddress.get(address!) ?? 1) - 1
    if (left === 0) c.perAddress.delete(address!)
    else c.perAddress.set(address!, left)
    if (c.capped.size > 0 && left <= cap / 2) c.capped.delete(address!)
  })
  return true
}

/**
 * The gate: a net.Server with the socket options Node's HTTP server gives
 * the connections it accepts itself (half-open allowed, for its own handling
 * of a client's end; no Nagle delay), handing `admitted` each connection
 * the caps let in.
 */
export const makeGate = (c: Connections, caps: Caps, admitted: (socket: Socket) => void): NetServer =>
  new NetServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
    if (admit(c, caps, socket)) admitted(socket)
  })
