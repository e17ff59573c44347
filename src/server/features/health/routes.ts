import { Hono } from "hono";
import type pg from "pg";

// Operators' probes: /healthz says the process is up, /readyz that the database answers.
export function healthRoutes(deps: { pool: pg.Pool }) {
  return new Hono()
    .get("/healthz", (c) => c.json({ status: "ok" }))
    .get("/readyz", async (c) => {
      try {
        await Promise.race([deps.pool.query("select 1"), new Promise((_, reject) => setTimeout(() => reject(new Error("timeout")), 2000))]);
        return c.json({ status: "ready", database: "ok" });
      } catch {
        return c.json({ status: "unavailable", database: "unreachable" }, 503);
      }
    });
}
