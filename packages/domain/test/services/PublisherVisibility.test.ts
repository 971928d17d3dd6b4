/**
 * The Publisher's visibility contract for webhook events
 * (test/support/contract/ratings-publisher-visibility.ts) over the in-memory
 * ports; adapters-sql's PgPublisherVisibility.test.ts runs it over Postgres.
 */
import { Layer } from "effect"
import { AlertRuleRepositoryMemory } from "../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { DeliveryOutboxMemory } from "../../src/ports/memory/DeliveryOutboxMemory.ts"
import { EntityRepositoryMemory } from "../../src/ports/memory/EntityRepositoryMemory.ts"
import { IdGeneratorMemory } from "../../src/ports/memory/IdGeneratorMemory.ts"
import { RubricRepositoryMemory } from "../../src/ports/memory/RubricRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../src/ports/memory/ScorecardRepositoryMemory.ts"
import { TransactionMemory } from "../../src/ports/memory/TransactionMemory.ts"
import { Scoring } from "../../src/scoring/Scoring.ts"
import { Publisher } from "../../src/services/Publisher.ts"
import { memoryTarget } from "../support/contract/ratings-harness.ts"
import { publisherVisibilityContract } from "../support/contract/ratings-publisher-visibility.ts"

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
