/** The Redis the shared-limiter tests use (CI runs one), and whether it answers. */
import { createConnection } from "node:net"

export const RedisUrl = "redis://127.0.0.1:6379"

export const redisReachable = () =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port: 6379 })
    const done = (up: boolean) => {
      socket.destroy()
      resolve(up)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })
