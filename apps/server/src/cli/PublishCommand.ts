/**
 * `ratings publish <entity-type> <slug>`: publish the entity's latest draft.
 * The figures are computed by the scoring core; a re-rating is always this act.
 * With `--publish-entity`, the entity itself becomes published in the same
 * transaction, so its record and its rating become readable together.
 *
 * `ratings status <entity-type> <slug> <status>`: move an entity through its
 * statuses (draft, scoring, approved, published). Only a published (active,
 * public) entity is readable (run/Publish.ts does both).
 */
import { userInfo } from "node:os"
import { Argument, Command, Flag } from "effect/cli"
import { choiceArgument, EntityStatusChoices, EntityTypeChoices } from "./Choices.ts"
import { lazily } from "./Lazy.ts"

const load = () => import("./run/Publish.ts")

const entityType = choiceArgument("entity-type", EntityTypeChoices, "The entity's type")
const slugArgument = Argument.String("slug").pipe(Argument.withDescription("The entity's slug"))

export const PublishCommand = Command.make(
  "publish",
  {
    entityType,
    slug: slugArgument,
    reasoning: Flag.String("reasoning").pipe(
      Flag.withDescription("Why the rating is set or changed (kept in the rating history)")
    ),
    actor: Flag.String("actor").pipe(
      Flag.withDescription("Who publishes"),
      Flag.withDefault(userInfo().username)
    ),
    publishEntity: Flag.Boolean("publish-entity").pipe(
      Flag.withDescription(
        "Also move the entity to status published, in the same transaction, so that the record and its rating become readable together"
      ),
      Flag.withDefault(false)
    )
  },
  (input) => lazily(load, (run) => run.publish(input))
).pipe(
  Command.withDescription(
    "Publish an entity's latest draft scorecard (with --publish-entity, publish the entity too)"
  )
)

export const StatusCommand = Command.make(
  "status",
  {
    entityType,
    slug: slugArgument,
    status: choiceArgument("status", EntityStatusChoices, "The status to move it to")
  },
  (input) => lazily(load, (run) => run.status(input))
).pipe(
  Command.withDescription(
    "Move an entity to a status (draft, scoring, approved, published); only published entities are readable"
  )
)
