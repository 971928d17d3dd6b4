/**
 * The Publisher's visibility rules for webhook events (issue 13, points 1 and
 * 2) on both backends: the in-memory ports and the Postgres adapters.
 */
import { AlertRuleRepository } from "@ratings/domain/ports/AlertRuleRepository"
import { DeliveryOutbox } from "@ratings/domain/ports/DeliveryOutbox"
import { EntityRepository } from "@ratings/domain/ports/EntityRepository"
import { IdGenerator } from "@ratings/domain/ports/IdGenerator"
import { RubricRepository } from "@ratings/domain/ports/RubricRepository"
import { ScorecardRepository } from "@ratings/domain/ports/ScorecardRepository"
import { Transaction } from "@ratings/domain/ports/Transaction"
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

const serverKey = Redacted.make(Buffer.alloc(32, 7).toString("base64"))

publisherVisibilityContract(
  memoryTarget(
    Publisher.layer.pipe(
      Layer.provideMerge(
        Layer.mergeAll(
          EntityRepository.layerMemory(),
          ScorecardRepository.layerMemory(),
          RubricRepository.layerMemory(),
          AlertRuleRepository.layerMemory,
          DeliveryOutbox.layerMemory,
          IdGenerator.layerMemory,
          Transaction.layerMemory,
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
        IdGenerator.layerMemory,
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
