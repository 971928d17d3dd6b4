/**
 * `ratings questions list <entity-type> [--json]`: the stored question
 * catalogue of a type, the questions an import's answers are written
 * against (ids, domains, positions, weights, text). An operator command:
 * anyone with access to the database may run it (run/Questions.ts).
 */
import { Command, Flag } from "effect/cli"
import { choiceArgument, EntityTypeChoices } from "./Choices.ts"
import { lazily } from "./Lazy.ts"

const list = Command.make(
  "list",
  {
    entityType: choiceArgument("entity-type", EntityTypeChoices, "Whose catalogue"),
    json: Flag.Boolean("json").pipe(
      Flag.withDescription(
        "Print the questions as a JSON array, as an import file's questions section takes them"
      ),
      Flag.withDefault(false)
    )
  },
  (input) =>
    lazily(
      () => import("./run/Questions.ts"),
      (run) => run.list(input)
    )
).pipe(Command.withDescription("Print the question catalogue of an entity type, in canonical order"))

export const QuestionsCommand = Command.make("questions").pipe(
  Command.withDescription("Question catalogues, which scorecards answer"),
  Command.withSubcommands([list])
)
