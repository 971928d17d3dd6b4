/**
 * The Publisher's visibility rules for webhook events (issue 13, points 1 and
 * 2) over the Postgres adapters: the domain's shared contract, whose
 * in-memory run is the domain's services/PublisherVisibility.test.ts.
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
import { publisherVisibilityContract } from "@ratings/domain/test-support/contract/ratings-publisher-visibility"
import { TestDatabase } from "./TestDatabase.ts"
import { IdGeneratorMemory } from "@ratings/domain/ports/memory/IdGeneratorMemory"

const serverKey = Redacted.make(Buffer.alloc(32, 7).toString("base64"))

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
