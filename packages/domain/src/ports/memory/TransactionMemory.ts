/** The in-memory `Transaction` of tests and tools; the contract is the port's (`../Transaction.ts`). */
import { Layer } from "effect"
import { Transaction } from "../Transaction.ts"

const layer = Layer.succeed(Transaction, Transaction.of({ run: (effect) => effect }))

export const TransactionMemory = { layer }
