/**
 * The AlertRuleRepository contract (test/support/contract) over the in-memory
 * layer; adapters-sql's PgAlertRuleRepository.test.ts runs it over Postgres.
 */
import { AlertRuleRepositoryMemory } from "../../../src/ports/memory/AlertRuleRepositoryMemory.ts"
import { alertRuleRepositoryContract } from "../../support/contract/events-alert-rule-repository.ts"

alertRuleRepositoryContract("layerMemory", () => AlertRuleRepositoryMemory.layer)
