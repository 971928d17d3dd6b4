/**
 * `ratings deliveries list|refire|refire-failed|rules|enable`: the operator's
 * view of the webhook outbox and of each rule's endpoint health. Failed
 * deliveries are never replayed automatically, only re-fired by hand: one
 * (`refire`, same delivery_id, due now) or in bulk since a time
 * (`refire-failed`, bounded per call). `rules` shows which endpoints are
 * disabled, when and why; `enable` enables one again, optionally re-firing
 * what failed while it was down. Nothing prints a signing key or a body
 * (run/Deliveries.ts, run/DeliveryOps.ts); bad input exits 1 saying why.
 */
import { Argument, Command, Flag } from "effect/cli"
import { lazily } from "./Lazy.ts"

const load = () => import("./run/Deliveries.ts")
const loadOps = () => import("./run/DeliveryOps.ts")

const DefaultLimit = 100

/** The domain's RefireBatchLimit, written here so that the definitions load no domain module (the run checks it). */
const RefireBatchLimit = 500

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

const refireFailed = Command.make(
  "refire-failed",
  {
    rule: Flag.String("rule").pipe(
      Flag.withDescription("The failed deliveries of this alert rule"),
      Flag.optional
    ),
    account: Flag.String("account").pipe(
      Flag.withDescription("The failed deliveries of every rule of this account"),
      Flag.optional
    ),
    since: Flag.String("since").pipe(
      Flag.withDescription(
        "Deliveries failed since this ISO 8601 date-time with a zone (2026-11-01T00:00:00Z)"
      )
    ),
    limit: Flag.Int("limit").pipe(
      Flag.withDescription(
        `At most this many per call (1 to ${RefireBatchLimit}; default ${RefireBatchLimit})`
      ),
      Flag.withDefault(RefireBatchLimit)
    )
  },
  (input) => lazily(loadOps, (run) => run.refireFailed(input))
).pipe(
  Command.withDescription(
    "Re-fire the failed deliveries of a rule or an account since a time, each keeping its delivery_id"
  )
)

const rules = Command.make(
  "rules",
  {
    disabled: Flag.Boolean("disabled").pipe(
      Flag.withDescription("Only rules whose endpoint is disabled"),
      Flag.withDefault(false)
    )
  },
  (input) => lazily(loadOps, (run) => run.rules(input))
).pipe(
  Command.withDescription(
    "List alert rules with their endpoint health: id, account, endpoint, active or disabled, failing since, disabled at, reason"
  )
)

const enable = Command.make(
  "enable",
  {
    ruleId: Argument.String("rule_id").pipe(Argument.withDescription("The alert rule to enable")),
    refire: Flag.Boolean("refire").pipe(
      Flag.withDescription("Also re-fire what failed or was held while the endpoint was down"),
      Flag.withDefault(false)
    )
  },
  (input) => lazily(loadOps, (run) => run.enable(input))
).pipe(Command.withDescription("Enable a rule's disabled webhook endpoint again"))

export const DeliveriesCommand = Command.make("deliveries").pipe(
  Command.withDescription("Inspect and re-fire webhook deliveries; see and enable rules' endpoints"),
  Command.withSubcommands([list, refire, refireFailed, rules, enable])
)
