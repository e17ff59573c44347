import { getRequestListener } from "@hono/node-server";
import { serveStatic } from "@hono/node-server/serve-static";
import type { Hono } from "hono";
import type http from "node:http";
import type net from "node:net";
import path from "node:path";
import type { Gateway } from "./features/gateway/index.js";
import { setAnswerHeader } from "./http/middleware.js";
import { projectRoot } from "./paths.js";

// The platform's HTTP servers (platform.ts): opening a port, the public server's listener (the
// gateway in front of the app), the app's fingerprinted assets, and closing servers without
// keep-alive connections holding them open.

/** Listens on `port`; resolves with the port it bound (port 0 picks a free one). */
export async function listenOn(server: http.Server, port: number, host?: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as net.AddressInfo).port;
}

/** The public server's requests: dev mode's Vite middleware in front of the app, and the gateway (when given) in front of both. */
export function publicListener(
  app: Hono,
  gateway: Gateway | undefined,
  dev?: (req: http.IncomingMessage, res: http.ServerResponse, next: () => void) => void,
): http.RequestListener {
  const listener = getRequestListener(app.fetch);
  const web: http.RequestListener = dev ? (req, res) => dev(req, res, () => void listener(req, res)) : listener;
  return gateway ? gateway.handler(web) : web;
}

/** Stops taking requests on each server that listens, one after the other. */
export async function closeServers(servers: (http.Server | undefined)[]): Promise<void> {
  for (const s of servers) {
    if (!s?.listening) continue;
    await new Promise<void>((resolve) => {
      s.close(() => resolve());
      // Keep-alive connections would hold close() open; end the idle ones now, the rest after 5 s.
      s.closeIdleConnections();
      setTimeout(() => {
        s.closeAllConnections();
        resolve();
      }, 5000).unref();
    });
  }
}

/** Fingerprinted assets never change: cached for a year. */
export function serveAssets(app: Hono) {
  const clientDir = path.relative(process.cwd(), path.join(projectRoot, "build/client"));
  app.use("/assets/*", async (c, next) => {
    await next();
    if (c.res.status === 200) setAnswerHeader(c, "Cache-Control", "public, max-age=31536000, immutable");
  });
  app.use("/assets/*", serveStatic({ root: clientDir }));
  app.use("/favicon.svg", serveStatic({ root: clientDir }));
  app.get("/favicon.ico", (c) => c.redirect("/favicon.svg", 301));
}
