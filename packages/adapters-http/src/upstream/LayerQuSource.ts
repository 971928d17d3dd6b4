/**
 * The QuantumSource port over HTTP (undici): one GET of the LayerQu dataset at
 * a configured URL. This is the one place the service calls a third party for
 * data, so every way the far end can misbehave is bounded: the time of the
 * whole exchange, the size of the body, the nesting of its JSON; redirects
 * are not followed (a 3xx is a failure naming the status, so the operator
 * points the URL at the final address), and anything but 2xx fails. The body
 * must be JSON, whatever its content-type says: rows at the top level or in
 * an envelope (`RowEnvelopeKeys`); the rows are returned unchecked, since
 * which count is the domain's call (`readRows`). Error messages name the URL
 * without its query string or credentials (`describeUrl`).
 */
import { QuantumSource, QuantumSourceError } from "@ratings/domain/ports/QuantumSource"
import { Duration, Effect, Layer } from "effect"
import { Agent, request } from "undici"

export interface LayerQuSourceOptions {
  /** The dataset's address, http or https. */
  readonly url: string
  /** Budget for the whole exchange; 15 seconds unless set. */
  readonly timeout?: Duration.Input | undefined
  /** Largest body accepted, in bytes; 2 MiB unless set. */
  readonly maxBytes?: number | undefined
}

export const DefaultTimeout: Duration.Duration = Duration.seconds(15)
/**
 * At most MaxQuantumRows rows of about 150 bytes: 2 MiB leaves room for
 * pretty-printing while keeping the parse to milliseconds. A larger declared
 * or received body is aborted and the fetch fails.
 */
export const DefaultMaxBytes = 2 * 1024 * 1024

/**
 * The deepest nesting of arrays and objects a body may have: rows are objects
 * in an array, maybe in an envelope (3 levels). Checked before JSON.parse,
 * which would otherwise hold the event loop on a body of brackets.
 */
export const MaxNestingDepth = 16

/** The object members that may hold the rows, in the order they are tried. */
export const RowEnvelopeKeys = ["rows", "data", "chains"] as const

/** A failure already worded for the operator, thrown inside the request so it is not reworded. */
class UpstreamRefused extends Error {}

const ignore = () => {}

const utf8 = new TextDecoder("utf-8", { fatal: true })

/** Origin and path only: the query string and user info may carry credentials. */
export const describeUrl = (url: URL): string => `${url.origin}${url.pathname}`

const parseUrl = (raw: string): URL => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error("the quantum-readiness source URL is not a valid URL")
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new Error(`the quantum-readiness source URL must be http or https, not ${url.protocol}`)
  return url
}

/**
 * Whether the JSON text in `bytes` nests arrays and objects deeper than
 * `max`: one pass, brackets inside strings ignored. UTF-8 continuation bytes
 * are all 0x80 or above, so they are never taken for a quote or a bracket.
 * Text that is not JSON may be misjudged either way; JSON.parse refuses it.
 */
export const nestsDeeperThan = (bytes: Uint8Array, max: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]
    if (inString) {
      if (byte === 0x5c)
        i++ // a backslash: the next byte is escaped
      else if (byte === 0x22) inString = false
    } else if (byte === 0x22) inString = true
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > max) return true
    } else if (byte === 0x5d || byte === 0x7d) depth--
  }
  return false
}

/** Picks the rows out of the parsed body, or says why the body is not a dataset. */
export const rowsOf = (body: unknown): ReadonlyArray<unknown> | string => {
  if (Array.isArray(body)) return body
  if (typeof body === "object" && body !== null) {
    for (const key of RowEnvelopeKeys) {
      if (key in body) {
        const value: unknown = (body as Record<string, unknown>)[key]
        if (Array.isArray(value)) return value
        return `its "${key}" member is not an array`
      }
    }
    return `it is an object without a ${RowEnvelopeKeys.map((k) => `"${k}"`).join(", ")} array`
  }
  return `it is ${body === null ? "null" : `a ${typeof body}`}, not an array of rows`
}

/** The error's message, led by its code (ECONNREFUSED, UND_ERR_...) when the message does not say it. */
const messageOf = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause)
  const code = "code" in cause && typeof cause.code === "string" ? cause.code : undefined
  return code === undefined || cause.message.includes(code) ? cause.message : `${code}: ${cause.message}`
}

/** What one source's fetches share: where, its dispatcher and its bounds. */
interface Target {
  readonly url: URL
  readonly agent: Agent
  readonly timeout: Duration.Duration
  readonly timeoutMillis: number
  readonly maxBytes: number
  readonly fail: (message: string, cause?: unknown) => QuantumSourceError
}

/** The body's bytes, within the size bound; the request is aborted past it. */
const download = async (target: Target, signal: AbortSignal): Promise<Buffer> => {
  const { maxBytes } = target
  const response = await request(target.url, {
    method: "GET",
    headers: { accept: "application/json" },
    dispatcher: target.agent,
    signal,
    // undici's own timers back up the overall budget below
    headersTimeout: target.timeoutMillis,
    bodyTimeout: target.timeoutMillis
  })
  const { body, statusCode } = response
  try {
    if (statusCode >= 300 && statusCode < 400)
      throw new UpstreamRefused(
        `answered HTTP ${statusCode} (a redirect; redirects are not followed, configure the final address)`
      )
    if (statusCode < 200 || statusCode >= 300) throw new UpstreamRefused(`answered HTTP ${statusCode}`)
    const declared = Number(response.headers["content-length"])
    if (Number.isFinite(declared) && declared > maxBytes)
      throw new UpstreamRefused(`body of ${declared} bytes is larger than the ${maxBytes}-byte limit`)
    const chunks: Array<Buffer> = []
    let size = 0
    for await (const chunk of body as AsyncIterable<Buffer>) {
      size += chunk.length
      if (size > maxBytes) throw new UpstreamRefused(`body is larger than the ${maxBytes}-byte limit`)
      chunks.push(chunk)
    }
    return Buffer.concat(chunks)
  } finally {
    // Not read to the end (refused, too large, aborted): drop the connection.
    // Destroying an unfinished body emits an abort error nobody else awaits.
    if (!body.readableEnded) body.on("error", ignore).destroy()
  }
}

/** The rows of a downloaded body: bounded nesting, UTF-8, JSON, a dataset. */
const parseBody = (fail: Target["fail"], bytes: Buffer) =>
  (nestsDeeperThan(bytes, MaxNestingDepth)
    ? Effect.fail(fail(`body nests arrays or objects deeper than ${MaxNestingDepth} levels`))
    : Effect.try({ try: () => utf8.decode(bytes), catch: (cause) => fail("body is not UTF-8 text", cause) })
  ).pipe(
    Effect.flatMap((text) =>
      Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: (cause) => fail("body is not JSON", cause)
      })
    ),
    Effect.flatMap((body) => {
      const rows = rowsOf(body)
      return typeof rows === "string"
        ? Effect.fail(fail(`body is not a dataset: ${rows}`))
        : Effect.succeed(rows)
    })
  )

const fetchOf = (target: Target) =>
  Effect.tryPromise({
    try: (signal) => download(target, signal),
    catch: (cause) =>
      cause instanceof UpstreamRefused
        ? target.fail(cause.message)
        : target.fail(`unreachable (${messageOf(cause)})`, cause)
  }).pipe(
    Effect.timeoutOrElse({
      duration: target.timeout,
      orElse: () => Effect.fail(target.fail(`no complete answer within ${Duration.format(target.timeout)}`))
    }),
    Effect.flatMap((bytes) => parseBody(target.fail, bytes)),
    Effect.withSpan("LayerQuSource.fetch")
  )

const make = (options: LayerQuSourceOptions) =>
  Effect.gen(function* () {
    const url = yield* Effect.try({
      try: () => parseUrl(options.url),
      catch: (cause) => cause as Error
    }).pipe(Effect.orDie)
    const where = describeUrl(url)
    const timeout = Duration.fromInputUnsafe(options.timeout ?? DefaultTimeout)
    const timeoutMillis = Duration.toMillis(timeout)
    const maxBytes = options.maxBytes ?? DefaultMaxBytes
    if (!(timeoutMillis > 0 && Number.isFinite(timeoutMillis)))
      return yield* Effect.die(
        new Error(`quantum source timeout must be positive and finite: ${timeoutMillis}`)
      )
    if (!(Number.isSafeInteger(maxBytes) && maxBytes > 0))
      return yield* Effect.die(new Error(`quantum source maxBytes must be a positive integer: ${maxBytes}`))

    // Our own dispatcher, closed with the layer, so no pooled socket outlives
    // the service (a one-shot CLI run exits at once).
    const agent = yield* Effect.acquireRelease(
      Effect.sync(() => new Agent({ connect: { timeout: timeoutMillis } })),
      (a) => Effect.promise(() => a.destroy())
    )

    const fail = (message: string, cause?: unknown) =>
      new QuantumSourceError({
        message: `quantum-readiness source ${where}: ${message}`,
        ...(cause === undefined ? {} : { cause })
      })

    return QuantumSource.of({ fetch: fetchOf({ url, agent, timeout, timeoutMillis, maxBytes, fail }) })
  })

/** The live source at `options.url`. Dies at construction on a URL that is not http(s). */
export const layer = (options: LayerQuSourceOptions): Layer.Layer<QuantumSource> =>
  Layer.effect(QuantumSource, make(options))

/**
 * A source for a service with no upstream configured: a real QuantumSource
 * whose every fetch fails saying so. `setting` names where the URL would be
 * configured, so the message tells the operator what to set.
 */
export const layerNotConfigured = (setting: string): Layer.Layer<QuantumSource> =>
  Layer.succeed(
    QuantumSource,
    QuantumSource.of({
      fetch: Effect.fail(new QuantumSourceError({ message: `no upstream URL configured (${setting})` }))
    })
  )
