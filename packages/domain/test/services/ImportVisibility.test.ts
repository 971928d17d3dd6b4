/**
 * The import visibility contract for webhook events
 * (test/support/contract/ratings-import-visibility.ts) over the in-memory
 * ports (`Importer.layerTest`); adapters-sql's PgImportVisibility.test.ts runs
 * it over Postgres.
 */
import { Importer } from "../../src/services/Importer.ts"
import { memoryTarget } from "../support/contract/ratings-harness.ts"
import { importVisibilityContract } from "../support/contract/ratings-import-visibility.ts"

importVisibilityContract(memoryTarget(Importer.layerTest))
