import { createHash, timingSafeEqual } from "node:crypto";
import http from "node:http";
import net from "node:net";
import { Hono } from "hono";
import type { Logger } from "../../log.js";

// Where Prometheus scrapes: GET /metrics on the public port with `Authorization: Bearer
// METRICS_TOKEN`, and/or without a token on an internal port (METRICS_HOST:METRICS_PORT) that
// only the monitoring network reaches. Without METRICS_TOKEN the public route does not exist.

export interface MetricsSource {
  /** the Prometheus text exposition (this process's, or all worker processes' together) */
  text(): Promise<string>;
  contentType: string;
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Constant time whatever the two lengths: both sides are hashed to 32 bytes first. */
export function tokenMatches(header: string | undefined, token: string): boolean {
  const m = header ? /^bearer\s+(.+)$/i.exec(header.trim()) : null;
  const given = m?.[1]?.trim() ?? "";
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

/** GET /metrics on the public port, given a token. */
export function metricsRoutes(source: MetricsSource, token: string, log: Logger) {
  return new Hono().get("/metrics", async (c) => {
    if (!tokenMatches(c.req.header("authorization"), token)) {
      return c.json({ error: "A valid metrics token is required (Authorization: Bearer METRICS_TOKEN)", code: "unauthorized" }, 401, {
        "WWW-Authenticate": 'Bearer realm="metrics"',
      });
    }
    try {
      return c.body(await source.text(), 200, { "content-type": source.contentType, "cache-control": "no-store" });
    } catch (e) {
      log.error({ err: e }, "metrics: scrape failed");
      return c.json({ error: "Metrics are unavailable", code: "internal" }, 500);
    }
  });
}

/** The internal port: /metrics without a token, 404 for anything else. */
export async function listenMetrics(source: MetricsSource, port: number, host: string, log: Logger): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "Not found", code: "not_found" }));
      return;
    }
    source.text().then(
      (body) =>
        res
          .writeHead(200, { "content-type": source.contentType, "cache-control": "no-store" })
          .end(req.method === "HEAD" ? undefined : body),
      (e: unknown) => {
        log.error({ err: e }, "metrics: scrape failed");
        res
          .writeHead(500, { "content-type": "application/json" })
          .end(JSON.stringify({ error: "Metrics are unavailable", code: "internal" }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  log.info({ url: `http://${host}:${(server.address() as net.AddressInfo).port}/metrics` }, "metrics listening");
  return server;
}
