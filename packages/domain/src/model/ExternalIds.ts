/**
 * external_ids: the stable cross-reference map from provider key to the id the
 * provider uses; the key never changes once set. Three states per provider:
 * mapped (the key holds an id), checked with no counterpart (`<provider>_note`
 * holds why, and the provider key stays absent), or not yet mapped (neither).
 * Unknown keys are free-form metadata and pass through decode and encode as-is.
 */
import { Schema } from "effect"

export const NoteSuffix = "_note"

/** The note key that records "checked, no counterpart" for a provider. */
export const noteKeyOf = (provider: string): string => provider + NoteSuffix

const noteRule = Schema.makeFilter<{ readonly [key: string]: string }>(
  (ids) => {
    const issues: Array<Schema.FilterIssue> = []
    for (const key of Object.keys(ids)) {
      if (!key.endsWith(NoteSuffix)) continue
      const provider = key.slice(0, -NoteSuffix.length)
      if (provider.length > 0 && Object.hasOwn(ids, provider)) {
        issues.push({
          path: [key],
          issue:
            `external_ids holds both "${provider}" and "${key}": a note means the counterpart was checked ` +
            `and none exists, so the "${provider}" key must stay absent`
        })
      }
    }
    return issues
  },
  { expected: "no provider key alongside its <provider>_note key" }
)

export const ExternalIds = Schema.Record(Schema.String, Schema.String)
  .annotate({
    description:
      "Map from provider key to the provider's id for this entity. An absent key means not mapped yet; " +
      "<provider>_note (with the provider key absent) means a counterpart was checked and none exists. " +
      "Unrecognised keys are free-form metadata. Stable across renames."
  })
  .check(noteRule)
  .annotate({ identifier: "ExternalIds" })
export type ExternalIds = typeof ExternalIds.Type

export type ExternalIdStatus =
  | { readonly _tag: "Mapped"; readonly id: string }
  | { readonly _tag: "CheckedNone"; readonly note: string }
  | { readonly _tag: "Unmapped" }

/**
 * Where a provider stands for one entity. An id wins over a note, so the helper
 * stays total on maps that never went through the schema.
 */
export const externalIdStatus = (
  ids: { readonly [key: string]: string },
  provider: string
): ExternalIdStatus => {
  if (Object.hasOwn(ids, provider)) return { _tag: "Mapped", id: ids[provider]! }
  const noteKey = noteKeyOf(provider)
  if (Object.hasOwn(ids, noteKey)) return { _tag: "CheckedNone", note: ids[noteKey]! }
  return { _tag: "Unmapped" }
}
