/**
 * The Publisher's visibility rules for webhook events (issue 13, points 1 and
 * 2) on both backends: the in-memory ports and the Postgres adapters.
 */
import { Scoring } from "@ratings/domain/scoring/Scoring"
import { Publisher } from "@ratings/domain/services/Publisher"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as PgAlertRuleRepository from "../src/PgAlertRuleRepository.ts"
import * as PgDeliveryOutbox from "../src/PgDeliveryOutbox.ts"
import * as PgEntityRepository from "../src/PgEntityRepository.ts"
import * as PgRubricRepository from "../src/PgRubricRepository.ts"
import * as PgScorecardRepository from "../src/PgScorecardRepository.ts"
import * as PgTransaction from "../src/PgTransaction.ts"
import { SecretBox } from "../src/SecretBox.ts"
import { publisherVisibilityContract } from "./contract/ratings-publisher-visibility.ts"
import { memoryTarget } from "./contract/ratings-harness.ts"
import { TestDatabase } from "./TestDatabase.ts"
import { AlertRuleRepositoryMemory } from "@ratings/domain/ports/memory/AlertRuleRepositoryMemory"
import { EntityRepositoryMemory } from "@ratings/domain/ports/memory/EntityRepositoryMemory"
import { IdGeneratorMemory } from "@ratings/domain/ports/memory/IdGeneratorMemory"
import { RubricRepositoryMemory } from "@ratings/domain/ports/memory/RubricRepositoryMemory"
import { ScorecardRepositoryMemory } from "@ratings/domain/ports/memory/ScorecardRepositoryMemory"
import { TransactionMemory } from "@ratings/domain/ports/memory/TransactionMemory"
import { DeliveryOutboxMemory } from "@ratings/domain/ports/memory/DeliveryOutboxMemory"

const serverKey = Redacted.make(Buffer.alloc(32, 7).toString("base64"))

publisherVisibilityContract(
  memoryTarget(
    Publisher.layer.pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          EntityRepositoryMemory.layer(),
          ScorecardRepositoryMemory.layer(),
          RubricRepositoryMemory.layer(),
          AlertRuleRepositoryMemory.layer,
          DeliveryOutboxMemory.layer,
          IdGeneratorMemory.layer,
          TransactionMemory.layer,
          Scoring.layer
        )
      )
    )
  )
)

publisherVisibilityContract({
  label: "Postgres",
  shared: TestDatabase,
  fresh: Publisher.layer.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        PgEntityRepository.layer,
        PgScorecardRepository.layer,
        PgRubricRepository.layer,
        PgAlertRuleRepository.layer.pipe(Layer.provide(SecretBox.layer(serverKey))),
        PgDeliveryOutbox.layer,
        PgTransaction.layer,
        IdGeneratorMemory.layer,
        Scoring.layer
      )
    )
  ),
  reset: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`TRUNCATE entities, questions, scorecards, answers, evidence, rating_history, alert_rules,
      webhook_deliveries CASCADE`
  })
})
