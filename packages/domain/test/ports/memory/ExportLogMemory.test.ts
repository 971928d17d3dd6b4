/**
 * The ExportLog contract (test/support/contract) over the in-memory layer;
 * adapters-sql's PgExportLog.test.ts runs it over Postgres.
 */
import { ExportLogMemory } from "../../../src/ports/memory/ExportLogMemory.ts"
import { exportLogContract } from "../../support/contract/ratings-export-log.ts"
import { memoryTarget } from "../../support/contract/ratings-harness.ts"

exportLogContract(memoryTarget(ExportLogMemory.layer))
