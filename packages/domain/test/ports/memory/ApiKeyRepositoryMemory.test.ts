/**
 * The ApiKeyRepository contract (test/support/contract) over the in-memory
 * layer; adapters-sql's PgApiKeyRepository.test.ts runs it over Postgres.
 */
import { ApiKeyRepositoryMemory } from "../../../src/ports/memory/ApiKeyRepositoryMemory.ts"
import { apiKeyRepositoryContract } from "../../support/contract/ratings-api-key-repository.ts"
import { memoryTarget } from "../../support/contract/ratings-harness.ts"

apiKeyRepositoryContract(memoryTarget(ApiKeyRepositoryMemory.layer))
