import type { PgClient } from "@effect/sql-pg"
import { SqlClient } from "effect/sql"

/**
 * The same client, but its transactions are not found where `copySession`
 * looks, so what it writes in them goes by the statements, never by COPY.
 */
export const statementsOnly = (sql: PgClient.PgClient): PgClient.PgClient => {
  const hidden = SqlClient.TransactionConnection(-1)
  return new Proxy(sql, {
    get: (target, key) => (key === "transactionService" ? hidden : Reflect.get(target, key, target))
  })
}
