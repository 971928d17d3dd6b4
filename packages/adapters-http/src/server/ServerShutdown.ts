/**
 * What a handler may ask about the server's shutdown: whether it is closing
 * the connections still open after the grace period (`serve`'s
 * `shutdownGrace`). A response cut then was cut by the server, not abandoned
 * by its caller: an export withdraws its record so it does not count against
 * the quota. Absent (tests that build the handlers alone): never cutting.
 */
import { Context, Duration, Effect, Option } from "effect"

export class ServerShutdown extends Context.Service<ServerShutdown, { readonly cutting: () => boolean }>()(
  "@ratings/adapters-http/server/ServerShutdown"
) {}

/** How long requests in flight may take to finish once the server is told to stop, unless configured. */
export const DefaultShutdownGrace = Duration.seconds(20)

/** Read where the handlers are built: whether the server is closing the connections left open. */
export const cuttingConnections: Effect.Effect<() => boolean> = Effect.map(
  Effect.serviceOption(ServerShutdown),
  Option.match({ onNone: () => () => false, onSome: (shutdown) => shutdown.cutting })
)
