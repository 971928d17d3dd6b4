/**
 * `ratings deliveries list|refire`: the operator's view of the webhook outbox
 * (spec part 3, "Webhook delivery": failed deliveries are never replayed
 * automatically, only re-fired by hand). `list` never prints a signing key or
 * a body: the body is the customer's event, and a terminal (or a pasted log)
 * is no place for it. `refire` is the operator's re-fire
 * (AlertRuleService.refire with no account): a failed delivery starts a new
 * cycle with the same delivery_id, due now, and the dispatcher of any running
 * server sends it; anything else exits 1 with a message that says why
 * (run/Deliveries.ts).
 */
import { Argument, Command, Flag } from "effect/cli"
import { lazily } from "./Lazy.ts"

const load = () => import("./run/Deliveries.ts")

const DefaultLimit = 100

const list = Command.make(
  "list",
  {
    failed: Flag.Boolean("failed").pipe(
      Flag.withDescription("Only failed deliveries (retries exhausted; re-fire them by hand)"),
      Flag.withDefault(false)
    ),
    rule: Flag.String("rule").pipe(
      Flag.withDescription("Only the deliveries of this alert rule (its id)"),
      Flag.optional
    ),
    limit: Flag.Int("limit").pipe(
      Flag.withDescription(`The newest this many deliveries (default ${DefaultLimit})`),
      Flag.withDefault(DefaultLimit)
    )
  },
  (input) => lazily(load, (run) => run.list(input))
).pipe(
  Command.withDescription(
    "List webhook deliveries, newest first: id, rule, event, status, attempts, next attempt, last error"
  )
)

const refire = Command.make(
  "refire",
  { deliveryId: Argument.String("delivery_id").pipe(Argument.withDescription("The delivery to re-fire")) },
  ({ deliveryId }) => lazily(load, (run) => run.refire(deliveryId))
).pipe(Command.withDescription("Re-fire a failed webhook delivery (same delivery_id, a new run of retries)"))

export const DeliveriesCommand = Command.make("deliveries").pipe(
  Command.withDescription("Inspect and re-fire webhook deliveries"),
  Command.withSubcommands([list, refire])
)
