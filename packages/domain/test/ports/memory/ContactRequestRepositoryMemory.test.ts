/**
 * The ContactRequestRepository contract (test/support/contract) over the
 * in-memory layer; adapters-sql's PgContactRequestRepository.test.ts runs it
 * over Postgres.
 */
import { ContactRequestRepositoryMemory } from "../../../src/ports/memory/ContactRequestRepositoryMemory.ts"
import { contactRequestRepositoryContract } from "../../support/contract/ratings-contact-request-repository.ts"
import { memoryTarget } from "../../support/contract/ratings-harness.ts"

contactRequestRepositoryContract(memoryTarget(ContactRequestRepositoryMemory.layer))
