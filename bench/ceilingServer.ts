/**
 * Read benchmark child process: the ceiling, a bare `node:http` server that
 * answers every request with one pre-serialised JSON body, so that the load
 * generator's own figure against it shows the most this machine serves for
 * a body of that size (and that the generator is not what limits the other
 * servers). `GET /__body?bytes=n` replaces the body with one of n bytes (a
 * JSON object padded to the size of the route's response) before a run.
 *
 *   node bench/ceilingServer.ts <port>
 */
import { createServer } from "node:http"

const [port] = process.argv.slice(2)
if (port === undefined) throw new Error("usage: ceilingServer.ts <port>")

/** A JSON object of exactly `bytes` bytes (at least the size of its envelope). */
const bodyOf = (bytes: number): Buffer => {
  const envelope = '{"items":[],"padding":""}'
  return Buffer.from(envelope.replace('""', `"${"x".repeat(Math.max(0, bytes - envelope.length))}"`))
}

let body = bodyOf(2)

const server = createServer((request, response) => {
  const url = request.url ?? "/"
  if (url.startsWith("/__body?")) {
    const bytes = Number(new URLSearchParams(url.slice("/__body?".length)).get("bytes"))
    if (!Number.isInteger(bytes) || bytes < 0) {
      response.writeHead(422).end()
      return
    }
    body = bodyOf(bytes)
    response.writeHead(204).end()
    return
  }
  response.writeHead(200, { "content-type": "application/json", "content-length": body.length })
  response.end(body)
})
server.keepAliveTimeout = 60_000
server.listen(Number(port), "127.0.0.1")
process.on("SIGTERM", () => server.close(() => process.exit(0)))
