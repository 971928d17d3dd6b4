/**
 * `Expect: 100-continue`: the client waits for a 100 before it sends the
 * body. The 100 is sent when the router begins to read the body, as
 * NodeHttpServer's own server does, so a route that answers without reading
 * it (a 401, a 404) sends none and the client sends no body nobody reads;
 * Node then closes the connection after the answer, since the body may
 * still come. A request refused before the router (a body declared too
 * large) never gets the 100.
 */
import type { IncomingMessage, ServerResponse } from "node:http"

/** Sends `response`'s 100 Continue when the body of `request` begins to be read, unless it was answered already. */
export const continueWhenRead = (request: IncomingMessage, response: ServerResponse): void => {
  // Every reader of a Node stream starts with a `data` or `readable` listener (a pipe, an iterator too).
  const onListener = (event: string | symbol): void => {
    if (event !== "data" && event !== "readable") return
    request.off("newListener", onListener)
    if (!response.headersSent) response.writeContinue()
  }
  request.on("newListener", onListener)
}
