/**
 * The ScorecardRepository contracts (test/support/contract: one at a time and
 * bulk) over the in-memory layers; adapters-sql's
 * PgScorecardRepository.test.ts runs them over Postgres.
 */
import { Layer } from "effect"
import { EntityRepositoryMemory } from "../../../src/ports/memory/EntityRepositoryMemory.ts"
import { ScorecardRepositoryMemory } from "../../../src/ports/memory/ScorecardRepositoryMemory.ts"
import { memoryTarget } from "../../support/contract/ratings-harness.ts"
import { scorecardBulkContract } from "../../support/contract/ratings-scorecard-bulk.ts"
import { scorecardRepositoryContract } from "../../support/contract/ratings-scorecard-repository.ts"

scorecardRepositoryContract(
  memoryTarget(Layer.merge(EntityRepositoryMemory.layer(), ScorecardRepositoryMemory.layer()))
)
scorecardBulkContract(
  memoryTarget(Layer.merge(EntityRepositoryMemory.layer(), ScorecardRepositoryMemory.layer()))
)
