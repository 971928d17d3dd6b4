#!/usr/bin/env -S node --conditions=@ratings/source --max-semi-space-size=16 --expose-gc
/**
 * `ratings`: the service's command line. `ratings serve` runs the HTTP API (what
 * `npm start` does); the other commands load and publish data, move entities
 * through their statuses, ingest incident
 * reports, refresh quantum-readiness data, manage keys, inspect and re-fire
 * webhook deliveries, and trace exports by their watermark.
 *
 * The commands are cli/Ratings.ts; this is the process around them: its
 * signals, its exit code, its teardown.
 */
import { NodeRuntime } from "@effect/platform-node"
import { releaseShutdownSignals } from "@ratings/adapters-sql/EmbeddedPostgresSignals"
import { ratingsMain } from "./cli/Ratings.ts"
import { teardown } from "./Shutdown.ts"

// The runtime handles SIGINT and SIGTERM (a graceful stop), not the embedded Postgres package.
releaseShutdownSignals()

// Failures are reported by ratingsMain itself (cli/Ratings.ts), to the Console of the run.
NodeRuntime.runMain(ratingsMain, { teardown, disableErrorReporting: true })
