/**
 * The test suite in three projects, run together by `npm test`:
 * - domain: the pure core (packages/domain, packages/demo-data). No database
 *   set-up, and one module graph shared by its files (no per-file isolation:
 *   these tests hold no global state, and importing Effect once instead of once
 *   per file is most of their time).
 * - adapters: the SQL, HTTP and webhook adapters over real Postgres, real HTTP
 *   and real receivers. No per-file isolation either: each file builds its
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
 * The fuzz campaign runs at a quick size here and at its full size in
 * `npm run test:fuzz` (FUZZ_SIZE=full; packages/adapters-http/test/Fuzz.test.ts).
 */
import { join } from "node:path"
import { defineConfig } from "vitest/config"
import LongestFirst from "./vitest.sequencer.ts"

const Workers = Number(process.env.TEST_WORKERS ?? 3)

// Spawned `ratings` processes (and the workers) reuse V8's compiled code across the run.
process.env.NODE_COMPILE_CACHE ??= join(import.meta.dirname, ".tmp", "node-compile-cache")

const withPostgres = ["./packages/adapters-sql/test/globalSetup.ts"]

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
        test: {
          name: "domain",
          include: ["packages/domain/test/**/*.test.ts", "packages/demo-data/test/**/*.test.ts"],
          isolate: false
        }
      },
      {
        extends: true,
        test: {
          name: "adapters",
          include: [
            "packages/adapters-sql/test/**/*.test.ts",
            "packages/adapters-http/test/**/*.test.ts",
            "packages/adapters-webhook/test/**/*.test.ts"
          ],
          globalSetup: withPostgres,
          isolate: false
        }
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["apps/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
          globalSetup: withPostgres
        }
      }
    ]
  }
})
