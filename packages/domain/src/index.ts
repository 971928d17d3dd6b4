/**
 * @ratings/domain: the pure core of the ratings service, as other tools install
 * it. Imports `effect` only, so a tool can score a scorecard without a server,
 * a database or Node. The root is the union of the public entry points
 * (`./scoring`, `./grades`, `./methodology`, `./import-format`); every other
 * module is internal: the workspace reaches it by path
 * (`@ratings/domain/scoring/ScoreEntity`) under the `@ratings/source` export
 * condition, which a consumer never sets.
 */
export * from "./entry/grades.ts"
export * from "./entry/import-format.ts"
export * from "./entry/methodology.ts"
export * from "./entry/scoring.ts"
