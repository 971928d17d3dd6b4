/**
 * The Node options a `ratings serve` process runs with (bench:soak's
 * RSS target). V8 sizes the young generation from the heap limit: with the
 * 4 GiB limit of a 24 GiB machine it lets each semi-space grow to 64 MiB
 * under load and keeps it, so a server's RSS doubled through a soak while
 * less than a quarter of that space held live objects. 16 MiB semi-spaces
 * keep RSS after a soak within 1.5x of idle, with no throughput or CPU cost
 * measured (docs/benchmarks.md, "Soak").
 *
 * `--expose-gc` gives the server V8's memory-reducing collection, which it
 * runs once traffic stops to hand the pages it pooled under load back to the
 * system (packages/adapters-http/src/server/IdleMemory.ts): without it, they
 * stay for about 100 seconds after the last request.
 *
 * V8 reads them only at start, so they are given on the command line: the
 * `ratings` command's first line, the `start` and `ratings` npm scripts,
 * and the benches that start a server as `ratings serve` does
 * (ServeNodeFlags.test.ts keeps them in step).
 */
export const ServeNodeFlags = ["--max-semi-space-size=16", "--expose-gc"] as const
