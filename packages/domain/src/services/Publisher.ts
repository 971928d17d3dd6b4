/**
 * Use case: publishing an entity's latest draft scorecard (spec part 1 rule 4:
 * a re-rating is always this explicit, human act, never automatic). The scoring
 * core is the authority: the published figures are computed here from the
 * answers, and a draft that carries figures which disagree is refused. The
 * scorecard, the history entry and the webhook outbox rows are written in one
 * transaction, so alerts go out exactly for what was published; events name
 * only an entity the public can read once the act is done (`eventsForAct`).
 * Its parts live in publisher/: one act and its pure step (PublishAct.ts), the
 * store's steps (ActSteps.ts), the acts on one entity (SingleActs.ts) and
 * `publishMany` (PublishMany.ts).
 */
import { Context, Effect, Layer } from "effect"
import { Projection } from "../access/Projection.ts"
import type { PublishRequest } from "../model/PublishRequest.ts"
import { AlertRuleRepository } from "../ports/AlertRuleRepository.ts"
import { DeliveryOutbox } from "../ports/DeliveryOutbox.ts"
import { EntityRepository } from "../ports/EntityRepository.ts"
import { IdGenerator } from "../ports/IdGenerator.ts"
import { RubricRepository } from "../ports/RubricRepository.ts"
import { ScorecardRepository } from "../ports/ScorecardRepository.ts"
import type { StoreError } from "../ports/StoreError.ts"
import { Transaction } from "../ports/Transaction.ts"
import { disagreement, FiguresDisagree } from "../scoring/FiguresDisagree.ts"
import { Scoring } from "../scoring/Scoring.ts"
import type { PublisherPorts } from "./publisher/ActSteps.ts"
import type {
  PublishAct,
  PublishError,
  PublishManyOptions,
  PublishManyResult,
  PublishResult,
  ShownEntity,
  StatusRequest,
  StatusResult
} from "./publisher/PublishAct.ts"
import { publishMany } from "./publisher/PublishMany.ts"
import { announce, publish, setStatus } from "./publisher/SingleActs.ts"

export { disagreement, FiguresDisagree }
export type { PublishRequest }
export {
  EntityNotFound,
  entityKey,
  NoDraftScorecard,
  type Prepared,
  type PublishAct,
  type PublishError,
  type PublishInput,
  type PublishManyOptions,
  type PublishManyResult,
  type PublishResult,
  preparePublication,
  type ShownEntity,
  type StatusRequest,
  type StatusResult
} from "./publisher/PublishAct.ts"

export class Publisher extends Context.Service<
  Publisher,
  {
    readonly publish: (request: PublishRequest) => Effect.Effect<PublishResult, PublishError>
    /**
     * `publish` of each act in order with the clock at `act.at`, in one
     * transaction: the first act that would fail fails the whole, and nothing
     * is written. The store is read in bulk and each act computed in memory by
     * the same pure step as `publish`; a dependency an earlier act published counts.
     */
    readonly publishMany: (
      acts: ReadonlyArray<PublishAct>,
      options?: PublishManyOptions
    ) => Effect.Effect<PublishManyResult, PublishError>
    /**
     * Moves an entity to a status and, with `publish`, publishes its latest
     * draft scorecard too, all in one transaction. The events are those of
     * `eventsForAct`: sent only when the entity is readable once the act is
     * done; a rating.new when its published rating becomes readable. Moving an
     * entity to the status it has changes nothing and sends nothing.
     */
    readonly setStatus: (request: StatusRequest) => Effect.Effect<StatusResult, PublishError>
    /**
     * Announces entities that a change of their records (an import's status
     * or flags) has just made readable: one rating.new each with its latest
     * published figures, nothing for one without a published rating, as
     * `setStatus` does. Run in the transaction that changed them; returns the
     * deliveries queued.
     */
    readonly announce: (shown: ReadonlyArray<ShownEntity>) => Effect.Effect<number, StoreError>
  }
>()("@ratings/domain/services/Publisher") {
  /**
   * The Publisher over the stores, with the scoring core and the tier
   * projection in context (read once, here). Its acts are named functions
   * of publisher/, given the ports.
   */
  static readonly layer = Layer.effect(
    Publisher,
    Effect.gen(function* () {
      const ports: PublisherPorts = {
        entities: yield* EntityRepository,
        scorecards: yield* ScorecardRepository,
        rubric: yield* RubricRepository,
        rules: yield* AlertRuleRepository,
        outbox: yield* DeliveryOutbox,
        ids: yield* IdGenerator,
        tx: yield* Transaction,
        scoring: yield* Scoring,
        projection: yield* Projection
      }
      return Publisher.of({
        publish: publish(ports),
        publishMany: publishMany(ports),
        setStatus: setStatus(ports),
        announce: announce(ports)
      })
    })
  )
}
