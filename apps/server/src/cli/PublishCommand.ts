/**
 * `ratings publish <entity-type> <slug>`: publish the entity's latest draft.
 * The figures are computed by the scoring core; a re-rating is always this act.
 */
import { userInfo } from "node:os"
import { EntityTypes } from "@ratings/domain/model/EntityType"
import { Publisher } from "@ratings/domain/services/Publisher"
import { Console, Effect } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { AppLayer } from "../AppLayer.ts"
import { CommandFailed } from "./CommandFailed.ts"

export const PublishCommand = Command.make(
  "publish",
  {
    entityType: Argument.Literals("entity-type", EntityTypes),
    slug: Argument.String("slug"),
    reasoning: Flag.String("reasoning").pipe(
      Flag.withDescription("Why the rating is set or changed (kept in the rating history)")
    ),
    actor: Flag.String("actor").pipe(
      Flag.withDescription("Who publishes"),
      Flag.withDefault(userInfo().username)
    )
  },
  Effect.fnUntraced(function* ({ entityType, slug, reasoning, actor }) {
    const publisher = yield* Publisher
    const result = yield* publisher
      .publish({ entity_type: entityType, slug, reasoning, actor })
      .pipe(Effect.result)
    if (result._tag === "Failure") {
      yield* Console.error(`publish refused: ${result.failure.message}`)
      return yield* new CommandFailed({ message: "failed" })
    }
    const s = result.success.scorecard
    const previous = result.success.previous
    yield* Console.log(
      `published ${entityType} ${slug} v${s.scorecard_version}: ${s.composite_score} ${s.grade}` +
        (s.intrinsic_composite_score !== s.composite_score
          ? ` (intrinsic ${s.intrinsic_composite_score} ${s.intrinsic_letter_grade}, ${s.largest_drag_hint})`
          : "") +
        (previous === undefined ? ", first rating" : `, was ${previous.composite_score} ${previous.grade}`) +
        `; ${result.success.deliveries} webhook deliveries queued`
    )
  }, Effect.provide(AppLayer))
).pipe(Command.withDescription("Publish an entity's latest draft scorecard"))
