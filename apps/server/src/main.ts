#!/usr/bin/env -S node --conditions=@ratings/source --max-semi-space-size=16 --expose-gc
/**
 * `ratings`: the service's command line. `ratings serve` runs the HTTP API (what
 * `npm start` does); the other commands load and publish data, move entities
 * through their statuses, ingest incident reports, refresh quantum-readiness
 * data, manage keys, inspect and re-fire webhook deliveries, and trace exports
 * by their watermark. The process is RatingsProcess.ts, loaded after Node's
 * module compile cache is on (in the system's temporary folder, or
 * NODE_COMPILE_CACHE; NODE_DISABLE_COMPILE_CACHE=1 turns it off): a start then
 * reads the compiled code of Effect's modules instead of compiling it again.
 */
import { enableCompileCache } from "node:module"

enableCompileCache()
await import("./RatingsProcess.ts")
