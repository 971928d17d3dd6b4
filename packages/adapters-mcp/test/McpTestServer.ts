/**
 * The HTTP adapter's test server (its test/TestServer.ts) with the MCP
 * endpoint mounted as `ratings serve` mounts it: the /mcp routes beside the
 * API's, limited per client address behind the proxies the server trusts,
 * and /mcp's body limit on the Node server.
 */
import { Seed } from "@ratings/adapters-http/test/fixtures"
import {
  type Backend,
  onEachBackend,
  type ServerIt,
  TestServer,
  type TestServerOptions
} from "@ratings/adapters-http/test/TestServer"
import { McpBodyLimit } from "../src/McpEndpoint.ts"
import { mcpRoutes } from "../src/RatingsMcpServer.ts"

/** `options` with the MCP endpoint mounted. */
export const withMcp = (options: TestServerOptions = {}): TestServerOptions => ({
  ...options,
  routes: mcpRoutes,
  connections: { ...options.connections, bodyLimits: [McpBodyLimit] }
})

export const McpTestServer = {
  layerMemory: (seed = Seed, options: TestServerOptions = {}) =>
    TestServer.layerMemory(seed, withMcp(options)),
  layerPostgres: (seed = Seed, options: TestServerOptions = {}) =>
    TestServer.layerPostgres(seed, withMcp(options))
}

/** TestServer's `onEachBackend`, over servers with the MCP endpoint mounted. */
export const onEachBackendWithMcp = (
  suites: (it: ServerIt, backend: Backend) => void,
  options: { readonly seed?: Seed | undefined; readonly server?: TestServerOptions | undefined } = {}
) => onEachBackend(suites, { ...options, server: withMcp(options.server) })
