/**
 * The RubricRepository contract (test/support/contract) over the in-memory
 * layer; adapters-sql's PgRubricRepository.test.ts runs it over Postgres.
 */
import { RubricRepositoryMemory } from "../../../src/ports/memory/RubricRepositoryMemory.ts"
import { memoryTarget } from "../../support/contract/ratings-harness.ts"
import { rubricRepositoryContract } from "../../support/contract/ratings-rubric-repository.ts"

rubricRepositoryContract(memoryTarget(RubricRepositoryMemory.layer()))
