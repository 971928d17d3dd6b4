/**
 * Port: fresh identifiers (export watermarks, scorecard and delivery ids). The
 * server's layer uses the platform's cryptographic UUID v4; the in-memory layer
 * counts, so tests see predictable ids.
 */
import { Context, type Effect } from "effect"

export class IdGenerator extends Context.Service<
  IdGenerator,
  {
    readonly uuid: Effect.Effect<string>
  }
>()("@ratings/domain/ports/IdGenerator") {}
