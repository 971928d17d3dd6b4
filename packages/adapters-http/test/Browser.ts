/**
 * Headless Chromium for browser tests: the Debian package's binary, driven by
 * playwright-core (which never downloads a browser of its own).
 */
import { chromium } from "playwright-core"

export const ChromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

export const launchChromium = () =>
  chromium.launch({
    executablePath: ChromiumPath,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
  })
