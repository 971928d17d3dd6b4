/**
 * The Node options a `ratings serve` process runs with. `--max-semi-space-size`
 * bounds V8's young generation, which otherwise grows under load and stays
 * grown, so a server's RSS swells through a soak (docs/benchmarks.md,
 * "Soak"). `--expose-gc` gives the server V8's memory-reducing collection,
 * which it runs once traffic stops to hand back the pages it pooled under
 * load (adapters-http server/IdleMemory.ts). V8 reads them only at start, so
 * they are given on the command line: the `ratings` command's first line, the
 * `start` and `ratings` npm scripts, and the benches that start a server as
 * `ratings serve` does (ServeNodeFlags.test.ts keeps them in step).
 */
export const ServeNodeFlags = ["--max-semi-space-size=16", "--expose-gc"] as const
