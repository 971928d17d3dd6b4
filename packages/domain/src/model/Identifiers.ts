/** Spec part 2 Identifiers rule 1: a UUID parse is tried first; if it fails, the value is a slug. */
const UuidText = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Whether the text is a UUID, in any case (as a uuid column reads one). */
export const isUuid = (text: string): boolean => UuidText.test(text)
