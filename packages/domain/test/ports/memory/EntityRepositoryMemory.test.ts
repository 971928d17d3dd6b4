/**
 * The EntityRepository contract (test/support/contract) over the in-memory
 * layer; adapters-sql's PgEntityRepository.test.ts runs it over Postgres.
 */
import { EntityRepositoryMemory } from "../../../src/ports/memory/EntityRepositoryMemory.ts"
import { entityRepositoryContract } from "../../support/contract/ratings-entity-repository.ts"
import { memoryTarget } from "../../support/contract/ratings-harness.ts"

entityRepositoryContract(memoryTarget(EntityRepositoryMemory.layer()))
