/**
 * What `ratings exports show <export_id>` does (the command and what it
 * promises: ExportsCommand.ts): the export's record, and the key that made
 * it, never the key itself.
 */
import type { ApiKeyInfo } from "@ratings/domain/model/Caller"
import { ApiKeyRepository } from "@ratings/domain/ports/ApiKeyRepository"
import type { ExportRecord } from "@ratings/domain/ports/ExportLog"
import { ExportLog } from "@ratings/domain/ports/ExportLog"
import { Console, Effect, Option } from "effect"
import { AppLayer } from "../../AppLayer.ts"
import { CommandFailed } from "../CommandFailed.ts"

/** What the record says of the key that made the export. */
const keyLine = (record: ExportRecord, key: ApiKeyInfo | undefined): string => {
  if (record.key_id === null)
    return record.account_id.startsWith("admin:")
      ? "none (an admin token)"
      : "not recorded (exported before keys were recorded)"
  if (key === undefined) return `${record.key_id} (no longer in the key store)`
  const state = key.revoked_at === null ? "active" : `revoked ${key.revoked_at}`
  return `${key.id} (${JSON.stringify(key.name)}, ${key.tier}, ${key.prefix}…, ${state})`
}

/** The record as `name  value` lines, in the order an investigator reads them. */
export const formatExport = (record: ExportRecord, key: ApiKeyInfo | undefined): string =>
  [
    ["export_id", record.export_id],
    ["exported_at", record.created_at],
    ["account", record.account_id],
    ["key", keyLine(record, key)],
    ["entity_type", record.entity_type],
    ["format", record.format],
    ["fields", record.fields.join(",")],
    ["rows", String(record.row_count)]
  ]
    .map(([name, value]) => `${name!.padEnd(12)}${value}`)
    .join("\n")

export const show = Effect.fnUntraced(function* (exportId: string) {
  const id = exportId.trim()
  const found = yield* (yield* ExportLog).find(id)
  if (Option.isNone(found)) {
    yield* Console.error(`no export with id ${JSON.stringify(id)} (an export id is the UUID in __export_id)`)
    return yield* new CommandFailed({ message: "failed" })
  }
  const record = found.value
  const key =
    record.key_id === null
      ? undefined
      : (yield* (yield* ApiKeyRepository).list()).find((k) => k.id === record.key_id)
  yield* Console.log(formatExport(record, key))
}, Effect.provide(AppLayer))
