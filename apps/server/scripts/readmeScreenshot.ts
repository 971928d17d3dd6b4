/**
 * Makes the README's screenshot of an explorer entity page from the demo
 * data: starts `ratings serve` on a fresh embedded database in a temporary
 * folder (the demo loads on its first start), makes a Pro key there, signs in
 * with it in headless Chromium (Debian's, driven by playwright-core) so the
 * page shows its domain scores and history, and writes the entity page at
 * 1280x900 to docs/images/explorer-entity.png. Run it with `npm run
 * screenshot:readme` after changing how the explorer looks.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { chromium } from "playwright-core"

const Root = join(import.meta.dirname, "..", "..", "..")
const Output = join(Root, "docs", "images", "explorer-entity.png")
const EntityPath = process.argv[2] ?? "/protocols/aave-v4"
const Viewport = { width: 1280, height: 900 }

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { readonly port: number }
      probe.close(() => resolve(port))
    })
  })

/** `ratings <args>` beside the running server (same data folder); its standard output. */
const ratings = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(Root, "apps", "server", "src", "main.ts"), ...args], { env })
    let out = ""
    let err = ""
    child.stdout.on("data", (d) => (out += d))
    child.stderr.on("data", (d) => (err += d))
    child.once("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`ratings ${args.join(" ")} exited (${code}):\n${err}`))
    )
  })

const main = async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "ratings-readme-screenshot-"))
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: "127.0.0.1",
    RATINGS_DATA_DIR: dataDir
  }
  delete env.DATABASE_URL
  const server = spawn(process.execPath, [join(Root, "apps", "server", "src", "main.ts"), "serve"], {
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const listening = new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString()
      if (/listening on/i.test(output)) resolve()
    }
    server.stdout.on("data", onData)
    server.stderr.on("data", onData)
    server.once("exit", (code) => reject(new Error(`ratings serve exited (${code}):\n${output}`)))
  })
  const stopped = new Promise((resolve) => server.once("exit", resolve))
  try {
    await listening
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
    })
    try {
      const page = await browser.newPage({ viewport: Viewport })
      const created = await ratings(["keys", "create", "--tier", "pro", "--name", "readme screenshot"], env)
      const key = created.split("\n").find((line) => line.startsWith("rk_"))
      if (key === undefined) throw new Error(`no key in the output of keys create:\n${created}`)
      await page.goto(`http://127.0.0.1:${port}/`)
      await page.fill('form[action="/sign-in"] input[name="key"]', key.trim())
      await Promise.all([
        page.waitForLoadState("load"),
        page.click('form[action="/sign-in"] [type="submit"]')
      ])
      const response = await page.goto(`http://127.0.0.1:${port}${EntityPath}`, { waitUntil: "networkidle" })
      if (response?.status() !== 200) throw new Error(`${EntityPath} answered ${response?.status()}`)
      mkdirSync(dirname(Output), { recursive: true })
      await page.screenshot({ path: Output })
      console.log(`wrote ${Output} (${EntityPath} at ${Viewport.width}x${Viewport.height})`)
    } finally {
      await browser.close()
    }
  } finally {
    server.kill("SIGTERM")
    await stopped
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
