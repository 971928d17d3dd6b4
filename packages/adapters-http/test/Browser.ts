/**
 * Headless Chromium for browser tests: the Debian package's binary, driven by
 * playwright-core (which never downloads a browser of its own), and what the
 * tests of a page's headers look for in it: the Content-Security-Policy
 * violations the page met, whether another origin can frame it, and every
 * request a page makes that would leave the server.
 */
import { createServer } from "node:http"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"

export const ChromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

export const launchChromium = () =>
  chromium.launch({
    executablePath: ChromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
  })

/** Reports each `securitypolicyviolation` event of a document to the test (installed before any page script). */
const ViolationListener = `document.addEventListener("securitypolicyviolation", (e) =>
  window.__reportPolicyViolation(e.violatedDirective + " " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber + ":" + e.columnNumber))`

/**
 * Every Content-Security-Policy violation the page's documents meet from now
 * on: the `securitypolicyviolation` events, and the browser's console errors
 * about the policy (a refused frame is reported on the console only).
 */
export const watchPolicyViolations = async (page: Page): Promise<ReadonlyArray<string>> => {
  const seen: Array<string> = []
  await page.exposeFunction("__reportPolicyViolation", (violation: string) => seen.push(violation))
  await page.addInitScript({ content: ViolationListener })
  page.on("console", (message) => {
    if (message.type() === "error" && /Content Security Policy/i.test(message.text()))
      seen.push(message.text())
  })
  return seen
}

/**
 * Opens a page of another origin (a server of its own, on `localhost` where
 * the tests' servers are on 127.0.0.1) that frames each of `urls`, and
 * answers, for each, the address the frame ended up showing: the URL itself
 * when the browser let it be framed, an error page when it refused.
 */
export const framedElsewhere = async (
  browser: Browser,
  urls: ReadonlyArray<string>
): Promise<ReadonlyArray<string>> => {
  const frames = urls.map((url, i) => `<iframe name="f${i}" src="${url}"></iframe>`).join("")
  const embedder = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(`<!doctype html><title>embedder</title>${frames}`)
  })
  await new Promise<void>((resolve) => embedder.listen(0, "127.0.0.1", resolve))
  const page = await browser.newPage()
  try {
    const { port } = embedder.address() as { readonly port: number }
    // `load` waits for every frame to load (or fail).
    await page.goto(`http://localhost:${port}/`, { waitUntil: "load" })
    // A refused frame is swapped for an error page, whose frame the browser may report a moment
    // after `load` (and without its name on a busy machine): by name, else by its place in the page.
    const frameOf = (i: number) => page.frame({ name: `f${i}` }) ?? page.mainFrame().childFrames()[i] ?? null
    const deadline = Date.now() + 5_000
    while (urls.some((_, i) => frameOf(i) === null) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    return urls.map((url, i) => {
      const frame = frameOf(i)
      if (frame === null) throw new Error(`no frame for ${url}`)
      return frame.url()
    })
  } finally {
    await page.close()
    await new Promise((resolve) => embedder.close(resolve))
  }
}

/** Whether a URL a page asked for stays on `origin` (data: and blob: URLs never leave the page). */
export const staysOn = (url: string, origin: string): boolean => {
  const { protocol, origin: of } = new URL(url)
  return protocol === "data:" || protocol === "blob:" || of === origin
}

/**
 * Every request the context's pages make from now on that would leave
 * `origin`, refused before it is sent (so a test never reaches the network):
 * route interception catches what the page fetches, the `request` event
 * anything it tries that interception does not see.
 */
export const guardOutside = async (
  context: BrowserContext,
  origin: string
): Promise<ReadonlyArray<string>> => {
  const outside: Array<string> = []
  const note = (url: string) => {
    if (!outside.includes(url)) outside.push(url)
  }
  await context.route("**/*", (route) => {
    const url = route.request().url()
    if (staysOn(url, origin)) return route.continue()
    note(url)
    return route.abort("blockedbyclient")
  })
  context.on("request", (request) => {
    if (!staysOn(request.url(), origin)) note(request.url())
  })
  return outside
}
