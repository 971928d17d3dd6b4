/**
 * The entity pages, /{plural}/{slug} for the seven types: answered from the
 * response cache per kind of caller (each tier reads its own depth), stamped
 * with every topic the page shows (its type, the entities its drag hints and
 * chains name, incidents and quantum readings), and a 404 page, the same for
 * an unknown entity as for one the caller may not see.
 */
import { ChangeTopics } from "@ratings/domain/model/ChangeTopic"
import { type EntityType, EntityTypes, PluralOf } from "@ratings/domain/model/EntityType"
import { Effect } from "effect"
import { HttpRouter } from "effect/http"
import { entityView, type EntityView } from "./EntityData.ts"
import { entityContent } from "./EntityPage.ts"
import { bytesOf } from "./Html.ts"
import { Layout } from "./Layout.ts"
import { respondPage } from "./PageCache.ts"
import { type ExplorerSettings, explorerPage, type PageContext } from "./Pages.ts"

/** The slug of the request's path (its last segment, decoded), or undefined when it does not decode. */
const slugOf = (context: PageContext): string | undefined => {
  const segment = context.url.pathname.split("/")[2] ?? ""
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

const entityPage = (type: EntityType) => (context: PageContext) =>
  Effect.gen(function* () {
    const slug = slugOf(context)
    if (slug === undefined || slug === "") return yield* Effect.fail({ _tag: "NotFound" as const })
    return yield* respondPage(context.cache, context.request, {
      caller: context.caller,
      key: `entity|${type}|${slug}`,
      type,
      also: ChangeTopics.filter((t) => t !== type),
      compute: () => entityView(context.services, context.caller, type, slug),
      render: (view: EntityView) =>
        bytesOf(
          Layout({
            branding: context.branding,
            viewer: context.viewer,
            title: view.record.name,
            section: `/${PluralOf[type]}`,
            children: entityContent(view)
          })
        )
    })
  })

export const entityRoutes = (settings: ExplorerSettings) =>
  EntityTypes.map((type) =>
    HttpRouter.add("GET", `/${PluralOf[type]}/:slug`, explorerPage(settings, entityPage(type)))
  )
