import http from "node:http";
import type pg from "pg";
import type { RunnerAgent } from "../features/deployments/runner-agent.js";
import { clusterAuthorized, type Gateway } from "../features/gateway/index.js";
import type { Logger } from "../log.js";

// A runner's internal port (RUNNER_PORT): never a public entry. Health probes answer without a
// credential; everything else needs the cluster secret: MCP traffic forwarded by gateways (served
// by this runner's gateway, where the sessions live), and the calls other processes make to stop
// a deployment here or read its output.

const STOP = /^\/internal\/deployments\/([0-9a-f-]{36})\/stop$/;
const LOGS = /^\/internal\/deployments\/([0-9a-f-]{36})\/logs$/;

export interface RunnerServerDeps {
  secret: string;
  agent: RunnerAgent;
  gateway: Gateway;
  pool: pg.Pool;
  log: Logger;
}

function json(res: http.ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) }).end(text);
}

export function runnerRequestListener(d: RunnerServerDeps): http.RequestListener {
  const notFound: http.RequestListener = (_req, res) => json(res, 404, { error: "not_found" });
  const gateway = d.gateway.handler(notFound);
  return (req, res) => {
    try {
      route(req, res);
    } catch (e) {
      // Nothing a caller sends may take the runner down.
      d.log.error({ err: e }, "runner request failed");
      if (!res.headersSent) json(res, 500, { error: "internal" });
      else res.destroy();
    }
  };
  function route(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = req.url ?? "/";
    if (req.method === "GET" && url === "/healthz") return json(res, 200, { status: "ok", runner: d.agent.id });
    if (req.method === "GET" && url === "/readyz") {
      if (!d.agent.started) return json(res, 503, { status: "starting", runner: d.agent.id });
      d.pool.query("select 1").then(
        () => json(res, 200, { status: "ready", runner: d.agent.id, database: "ok" }),
        () => json(res, 503, { status: "unavailable", database: "unreachable" }),
      );
      return;
    }
    if (!clusterAuthorized(req, d.secret))
      return json(res, 401, { error: "unauthorized", message: "This is a runner's internal port: it needs the cluster secret" });
    const stop = STOP.exec(url);
    if (stop && req.method === "POST") {
      d.agent.release(stop[1]!).then(
        () => res.writeHead(204).end(),
        (e: unknown) => {
          d.log.error({ err: e }, "could not stop a deployment");
          json(res, 500, { error: "internal" });
        },
      );
      return;
    }
    const logs = LOGS.exec(url);
    if (logs && req.method === "GET") return json(res, 200, { lines: d.agent.runner.logs(logs[1]!) });
    return void gateway(req, res);
  }
}
