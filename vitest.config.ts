/**
 * The test suite in three projects, run together by `npm test`:
 * - domain: the pure core (packages/domain, packages/demo-data). No database
 *   set-up, and one module graph shared by its files (no per-file isolation:
 *   these tests hold no global state, and importing Effect once instead of once
 *   per file is most of their time).
 * - adapters: the SQL, HTTP, webhook and MCP adapters over real Postgres, real
 *   HTTP and real receivers. No per-file isolation either: each file builds its
 *   own servers, databases and layers and releases them, so files share only
 *   the modules they import (which halves the project's time).
 * - e2e: the `ratings` command line and server processes (apps/server) and the
 *   benches' own tests (bench/test).
 * The adapters and e2e projects share one Postgres: DATABASE_URL's server, or
 * one embedded server the global set-up starts when it is unset.
 *
 * The files of all three run side by side on `Workers` workers: most of an
 * end-to-end test's time is spent waiting (on child processes, receivers,
 * leases), so a 2-core machine runs more workers than cores, and the longest
 * files start first (vitest.sequencer.ts). TEST_WORKERS overrides the count.
 *
 * The workspace runs from source: the projects resolve `@ratings/domain` (and
 * any process they spawn, through NODE_OPTIONS) under the "@ratings/source"
 * export condition, which maps it to src/*.ts. The domain-dist project runs the
 * scoring property tests once more without it, against the package as built and
 * shipped (dist/, built by its global set-up; issue 16).
 *
 * The fuzz campaigns run at a quick size here and at their full size in
 * `npm run test:fuzz` (FUZZ_SIZE=full; packages/adapters-http/test/Fuzz.test.ts,
 * packages/adapters-mcp/test/McpFuzz.test.ts).
 */
import { join } from "node:path"
import { defineConfig } from "vitest/config"
import LongestFirst from "./vitest.sequencer.ts"

const Workers = Number(process.env.TEST_WORKERS ?? 3)

// Spawned `ratings` processes (and the workers) reuse V8's compiled code across the run.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, ".tmp", "node-compile-cache")

const withPostgres = ["./packages/adapters-sql/test/globalSetup.ts"]

/** Vite's default server conditions, with the workspace's own source first. */
const SourceCondition = "@ratings/source"
const fromSource = { resolve: { conditions: [SourceCondition, "module", "node", "development|production"] } }
// `vitest` run without npm (which sets it from .npmrc) still hands the condition to spawned processes.
if (!(process.env.NODE_OPTIONS ?? "").includes(`--conditions=${SourceCondition}`)) {
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ""} --conditions=${SourceCondition}`.trim()
}
/** NODE_OPTIONS without the source condition: what a consumer of the built package runs with. */
const withoutSource = (process.env.NODE_OPTIONS ?? "").replace(`--conditions=${SourceCondition}`, "").trim()

export default defineConfig({
  test: {
    reporters: ["default", "./vitest.summary.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: Workers,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        ssr: fromSource,
        test: {
          name: "domain",
          include: ["packages/domain/test/**/*.test.ts", "packages/demo-data/test/**/*.test.ts"],
          isolate: false
        }
      },
      {
        // The same property tests, importing @ratings/domain's public entry points, resolved to dist/.
        extends: true,
        test: {
          name: "domain-dist",
          include: [
            "packages/domain/test/scoring/ScoringProperties.test.ts",
            "packages/domain/test/scoring/PublishedFigures.test.ts",
            "packages/domain/test/entry/EntryTotality.test.ts"
          ],
          globalSetup: ["./packages/domain/test/support/buildDist.ts"],
          env: { NODE_OPTIONS: withoutSource, RATINGS_DOMAIN_FROM: "dist" }
        }
      },
      {
        extends: true,
        ssr: fromSource,
        test: {
          name: "adapters",
          include: [
            "packages/adapters-sql/test/**/*.test.ts",
            "packages/adapters-http/test/**/*.test.ts",
            "packages/adapters-webhook/test/**/*.test.ts",
            "packages/adapters-mcp/test/**/*.test.ts"
          ],
          globalSetup: withPostgres,
          isolate: false
        }
      },
      {
        extends: true,
        ssr: fromSource,
        test: {
          name: "e2e",
          include: ["apps/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
          globalSetup: withPostgres
        }
      }
    ]
  }
})
