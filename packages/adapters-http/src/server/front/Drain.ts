/**
 * `drain` stops a server gracefully: no new connections, every request in
 * flight (and its streamed body) may finish within a grace period, and each
 * connection closes once its response is sent instead of staying open for
 * keep-alive; what is still open when the grace runs out is closed.
 */
import type { NodeServer } from "./NodeServer.ts"

/** How often a drain closes the connections that have become idle. */
const SweepIntervalMs = 50
/** How long a drain waits for the first request of a connection accepted before it began. */
export const FirstRequestWaitMs = 1_000

/**
 * Stops accepting connections and waits, at most `graceMs`, for every open
 * connection to finish its responses; `onCut` runs just before the ones
 * still open then are closed. Resolves with how many were cut (0: none).
 *
 * A connection is closed as soon as it is idle: its responses all sent
 * (not merely written: Node's own `closeIdleConnections` would cut a large
 * body still flushing), or no request on it yet `FirstRequestWaitMs` after
 * the drain began. Requests that arrive during the drain are served, with
 * `Connection: close`.
 */
export const drain = (server: NodeServer, graceMs: number, onCut: () => void): Promise<number> =>
  new Promise((resolve) => {
    const c = server.connections
    if (!server.gate.listening) return resolve(0)
    c.draining = true
    const began = Date.now()
    let done = false
    const finish = (cut: number) => {
      if (done) return
      done = true
      clearInterval(sweep)
      clearTimeout(timer)
      resolve(cut)
    }
    const closeIdle = () => {
      const waited = Date.now() - began >= FirstRequestWaitMs
      for (const [socket, state] of c.sockets)
        if (state.inFlight === 0 && (state.served > 0 || waited)) socket.destroy()
    }
    const sweep = setInterval(closeIdle, SweepIntervalMs)
    const timer = setTimeout(() => {
      const open = c.sockets.size
      onCut()
      for (const socket of c.sockets.keys()) socket.destroy()
      finish(open)
    }, graceMs)
    // The gate stops listening (not the HTTP server, whose `close` would cut idle-looking
    // connections still flushing); its callback runs once every connection it accepted has ended.
    server.gate.close(() => finish(0))
    closeIdle()
  })
