/**
 * The Postgres of a data folder, where no Postgres is started: a DATABASE_URL
 * is used as given and the folder is not touched (no lock, no cluster), and a
 * folder with no Postgres running offers none to join. Owning, joining and
 * taking over a folder's embedded Postgres are checked end to end by
 * apps/server DataDirOwnership.test.ts.
 */
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { lockFile } from "../src/DataDirLock.ts"
import { resolveDatabase, runningUrl } from "../src/EmbeddedDataDir.ts"

const folder = () => mkdtempSync(join(tmpdir(), "ratings-data-dir-"))

describe("data folder's database", () => {
  it.effect("with a DATABASE_URL, either role uses it and leaves the data folder alone", () =>
    Effect.gen(function* () {
      const dataDir = folder()
      const databaseUrl = Option.some(Redacted.make("postgres://app@db.example:5432/ratings"))
      for (const role of ["serve", "command"] as const) {
        const target = yield* Effect.scoped(resolveDatabase({ databaseUrl, dataDir }, role))
        assert.deepStrictEqual(target, { url: "postgres://app@db.example:5432/ratings", embedded: false })
      }
      assert.isFalse(existsSync(lockFile(dataDir)))
      assert.isFalse(existsSync(join(dataDir, "pg")))
    })
  )

  it.effect("a folder where no embedded Postgres runs has none to join", () =>
    Effect.gen(function* () {
      assert.isTrue(Option.isNone(yield* runningUrl(folder())))
    })
  )
})
