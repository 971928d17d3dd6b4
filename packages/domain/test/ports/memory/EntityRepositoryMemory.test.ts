/**
 * The EntityRepository contracts (test/support/contract) over the in-memory
 * layer; adapters-sql's PgEntityRepository.test.ts runs them over Postgres.
 */
import { EntityRepositoryMemory } from "../../../src/ports/memory/EntityRepositoryMemory.ts"
import { entityRepositoryContract } from "../../support/contract/ratings-entity-repository.ts"
import { entityRulesContract } from "../../support/contract/ratings-entity-rules.ts"
import { memoryTarget } from "../../support/contract/ratings-harness.ts"

entityRepositoryContract(memoryTarget(EntityRepositoryMemory.layer()))
entityRulesContract(memoryTarget(EntityRepositoryMemory.layer()))
