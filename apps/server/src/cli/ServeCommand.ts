/**
 * `ratings serve` (what `npm start` runs): the HTTP API on PORT, with the
 * webhook dispatcher loop beside it in every process (deliveries are claimed
 * from the shared outbox, so any number of processes can serve one database)
 * and, when RATINGS_QUANTUM_SOURCE_URL is set, the quantum-readiness
 * refresher; without it nothing is fetched and the stored snapshot is served
 * as it is. On the first start of the embedded default the demo dataset is
 * loaded, unless --no-demo or RATINGS_LOAD_DEMO=false. Shutdown drains (run/Serve.ts).
 */
import { Command, Flag } from "effect/cli"
import { lazily } from "./Lazy.ts"

export const ServeCommand = Command.make(
  "serve",
  {
    noDemo: Flag.Boolean("no-demo").pipe(
      Flag.withDescription("Do not load the demo dataset on the first start of the embedded database"),
      Flag.withDefault(false)
    )
  },
  ({ noDemo }) =>
    lazily(
      () => import("./run/Serve.ts"),
      (run) => run.serveCommand(noDemo)
    )
).pipe(Command.withDescription("Serve the HTTP API"))
