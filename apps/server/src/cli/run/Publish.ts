/**
 * What `ratings publish` and `ratings status` do (the commands:
 * PublishCommand.ts). The figures are computed by the scoring core; a
 * re-rating is always a publish. Only a published (active, public) entity is
 * readable; when its published rating becomes readable, the alert rules get
 * one rating.new (docs/webhooks.md).
 */
import type { EntityStatus } from "@ratings/domain/model/Entity"
import type { EntityType } from "@ratings/domain/model/EntityType"
import { Publisher, type PublishError, type StatusResult } from "@ratings/domain/services/Publisher"
import type { StoredScorecard } from "@ratings/domain/ports/ScorecardRepository"
import { Console, Effect } from "effect"
import { AppLayer } from "../../AppLayer.ts"
import { CommandFailed } from "../CommandFailed.ts"

const refused = (verb: string) => (error: PublishError) =>
  Effect.andThen(Console.error(`${verb} refused: ${error.message}`), new CommandFailed({ message: "failed" }))

const publishedLine = (
  entityType: string,
  slug: string,
  s: StoredScorecard,
  previous: StoredScorecard | undefined
) =>
  `published ${entityType} ${slug} v${s.scorecard_version}: ${s.composite_score} ${s.grade}` +
  (s.intrinsic_composite_score !== s.composite_score
    ? ` (intrinsic ${s.intrinsic_composite_score} ${s.intrinsic_letter_grade}, ${s.largest_drag_hint})`
    : "") +
  (previous === undefined ? ", first rating" : `, was ${previous.composite_score} ${previous.grade}`)

const statusLine = (entityType: string, slug: string, r: StatusResult) =>
  (r.previous_status === r.status
    ? `${entityType} ${slug} is already ${r.status}`
    : `${entityType} ${slug}: ${r.previous_status} -> ${r.status}`) +
  (r.readable
    ? "; readable by the public"
    : "; not readable by the public (only published, active, public entities are)")

const notReadableHint = (entityType: string, slug: string) =>
  `note: ${entityType} ${slug} is not published (or is private or inactive), so nobody but an admin can read ` +
  `this rating and no webhook was sent; \`ratings status ${entityType} ${slug} published\` makes it readable`

export const publish = Effect.fnUntraced(function* (input: {
  readonly entityType: EntityType
  readonly slug: string
  readonly reasoning: string
  readonly actor: string
  readonly publishEntity: boolean
}) {
  const { entityType, slug, reasoning, actor, publishEntity } = input
  const publisher = yield* Publisher
  if (publishEntity) {
    const r = yield* publisher
      .setStatus({ entity_type: entityType, slug, status: "published", publish: { reasoning, actor } })
      .pipe(Effect.catch(refused("publish")))
    const p = r.publication!
    yield* Console.log(
      `${publishedLine(entityType, slug, p.scorecard, p.previous)}; ${statusLine(entityType, slug, r)}` +
        `; ${r.deliveries} webhook deliveries queued`
    )
    return
  }
  const r = yield* publisher
    .publish({ entity_type: entityType, slug, reasoning, actor })
    .pipe(Effect.catch(refused("publish")))
  yield* Console.log(
    `${publishedLine(entityType, slug, r.scorecard, r.previous)}; ${r.deliveries} webhook deliveries queued`
  )
  if (!r.readable) yield* Console.log(notReadableHint(entityType, slug))
}, Effect.provide(AppLayer))

export const status = Effect.fnUntraced(function* (input: {
  readonly entityType: EntityType
  readonly slug: string
  readonly status: EntityStatus
}) {
  const { entityType, slug, status } = input
  const r = yield* (yield* Publisher)
    .setStatus({ entity_type: entityType, slug, status })
    .pipe(Effect.catch(refused("status change")))
  yield* Console.log(`${statusLine(entityType, slug, r)}; ${r.deliveries} webhook deliveries queued`)
}, Effect.provide(AppLayer))
