#!/usr/bin/env node
/**
 * `ratings`: the service's command line. `ratings serve` runs the HTTP API (what
 * `npm start` does); the other commands load and publish data, move entities
 * through their statuses, ingest incident
 * reports, refresh quantum-readiness data, manage keys, inspect and re-fire
 * webhook deliveries, and trace exports by their watermark.
 */
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { releaseShutdownSignals } from "@ratings/adapters-sql/EmbeddedPostgresSignals"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { DeliveriesCommand } from "./cli/DeliveriesCommand.ts"
import { DemoCommand } from "./cli/DemoCommand.ts"
import { DevCommand } from "./cli/DevCommand.ts"
import { ExportsCommand } from "./cli/ExportsCommand.ts"
import { ImportCommand } from "./cli/ImportCommand.ts"
import { IncidentsCommand } from "./cli/IncidentsCommand.ts"
import { KeysCommand } from "./cli/KeysCommand.ts"
import { PublishCommand, StatusCommand } from "./cli/PublishCommand.ts"
import { QuantumCommand } from "./cli/QuantumCommand.ts"
import { ServeCommand } from "./cli/ServeCommand.ts"
import { TracingLayer } from "./Observability.ts"
import { teardown } from "./Shutdown.ts"

export const Ratings = Command.make("ratings").pipe(
  Command.withDescription("DeFi risk-ratings service"),
  Command.withSubcommands([
    ServeCommand,
    ImportCommand,
    PublishCommand,
    StatusCommand,
    IncidentsCommand,
    QuantumCommand,
    KeysCommand,
    DeliveriesCommand,
    ExportsCommand,
    DemoCommand,
    DevCommand
  ])
)

// The runtime handles SIGINT and SIGTERM (a graceful stop), not the embedded Postgres package.
releaseShutdownSignals()

Ratings.pipe(
  Command.run({ version: "0.1.0" }),
  // Spans are exported when OTEL_EXPORTER_OTLP_ENDPOINT is set (Observability.ts); flushed as the command ends.
  Effect.provide(TracingLayer),
  Effect.provide(NodeServices.layer),
  NodeRuntime.runMain({ teardown })
)
