/**
 * A real webhook receiver on loopback for the HTTP tests: it answers every
 * POST with a status the test can change, and records each request's headers
 * and raw body, decoded from exactly the bytes received.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"

export interface Received {
  readonly headers: IncomingHttpHeaders
  /** The raw body, decoded as UTF-8 from exactly the bytes received. */
  readonly body: string
}

/** A real webhook receiver on loopback answering `status` (changeable), recording every request. */
export const receiver = (initialStatus: number) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const received: Array<Received> = []
      const state = { status: initialStatus }
      const server = createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (chunk: Buffer) => chunks.push(chunk))
        req.on("end", () => {
          received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
          res.writeHead(state.status, { "content-type": "text/plain" })
          res.end("ok")
        })
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const { port } = server.address() as AddressInfo
      return {
        url: `http://127.0.0.1:${port}/hooks/ratings`,
        received,
        /** The requests of one delivery (its webhook-id): other tests' deliveries may reach this receiver too. */
        of: (deliveryId: string) => received.filter((d) => d.headers["webhook-id"] === deliveryId),
        answer: (status: number) => {
          state.status = status
        },
        server
      }
    }),
    ({ server }) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            // Keep-alive sockets of the transport's pool would otherwise hold close() open.
            server.closeAllConnections()
            server.close(() => resolve())
          })
      )
  )
