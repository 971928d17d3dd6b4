import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "apps/*/test/**/*.test.ts", "bench/test/**/*.test.ts"],
    globalSetup: ["./packages/adapters-sql/test/globalSetup.ts"],
    reporters: ["default", "./vitest.summary.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
