/**
 * The connection bounds of the Node server unless configured. Kept apart from
 * the server (NodeServer.ts re-exports them) so that reading the
 * configuration loads no HTTP server.
 */

/** The bounds unless configured: tens of seconds to send a request, 256 connections per address, no total cap. */
export const DefaultConnectionLimits = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 30_000,
  maxConnectionsPerAddress: 256,
  maxConnections: 0
} as const
