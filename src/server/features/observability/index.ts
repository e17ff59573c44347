import type { Hono } from "hono";
import type http from "node:http";
import cluster from "node:cluster";
import { Registry } from "prom-client";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { GatewayObserver } from "../gateway/observe.js";
import type { RunnerEvent } from "../runtime/runner.js";
import { clusterSource, type ClusterSource } from "./cluster.js";
import { registrySyncGauges } from "../registry-api/sync-gauges.js";
import { Metrics, type GatewayGauges, type RunnerGauges } from "./metrics.js";
import { listenMetrics, metricsRoutes } from "./routes.js";
import { Tracing } from "./tracing.js";

export { Metrics, Tracing };

// Operators' view of the platform (docs/observability.md): Prometheus metrics at /metrics and
// OpenTelemetry traces of gateway calls. The platform assembly creates one per process and wires
// it in: its observers into the gateways, its routes and HTTP middleware into the app, the
// runner's events into the metrics, and its internal port into listen/close.

export interface ObservabilityDeps {
  config: Config;
  db: Db;
  log: Logger;
  /** this process's gateways: sessions, stream bytes, closed streams, dropped messages (read at scrape) */
  gateways(): GatewayGauges;
  /** this process's runner, when it has the runner role */
  runner?: RunnerGauges;
}

export interface Observability {
  metrics: Metrics;
  tracing: Tracing | undefined;
  /** for the gateways (platform-gateway.ts gatewayObservers) */
  observers: GatewayObserver[];
  /** for the RunnerAgent: restarts and install times */
  runnerEvent(id: string, e: RunnerEvent): void;
  /** for the Waker: a wake this process did, how long it took and how it ended */
  wake(seconds: number, outcome: string): void;
  /** /metrics (with METRICS_TOKEN) and the HTTP request metrics: call on the top-level app before any route */
  mount(app: Hono): void;
  /** the internal metrics port (METRICS_PORT), when set; a worker process leaves it to its primary */
  listen(): Promise<void>;
  /** stops the internal port, sends the last spans */
  close(): Promise<void>;
}

export function createObservability(d: ObservabilityDeps): Observability {
  const { config, log } = d;
  const metrics = new Metrics({ db: d.db, log, gateways: d.gateways, runner: d.runner });
  if (config.REGISTRY_SYNC_URL) registrySyncGauges(metrics.registry, { db: d.db, log, upstream: config.REGISTRY_SYNC_URL });
  const endpoint = config.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracing = endpoint ? new Tracing({ endpoint, serviceName: config.OTEL_SERVICE_NAME, log }) : undefined;
  const source = clusterSource(metrics.registry, log);
  let server: http.Server | undefined;
  return {
    metrics,
    tracing,
    observers: tracing ? [metrics.observer, tracing.observer] : [metrics.observer],
    runnerEvent: (id, e) => metrics.runnerEvent(id, e),
    wake: (seconds, outcome) => metrics.woke(seconds, outcome),
    mount(app) {
      // The route first, so scrapes are not counted as HTTP requests.
      if (config.METRICS_TOKEN) app.route("/", metricsRoutes(source, config.METRICS_TOKEN, log));
      app.use("*", metrics.httpMiddleware());
    },
    async listen() {
      if (config.METRICS_PORT === undefined || cluster.isWorker || server) return;
      server = await listenMetrics(source, config.METRICS_PORT, config.METRICS_HOST, log);
    },
    async close() {
      source.close();
      if (server) await closeServer(server);
      await tracing?.close();
    },
  };
}

/**
 * The primary of several worker processes when it runs no platform itself (WORKERS > 1 without
 * the runner role): it still gathers the workers' figures and serves METRICS_PORT.
 */
export async function serveWorkersMetrics(config: Config, log: Logger): Promise<{ close(): Promise<void> }> {
  const source: ClusterSource = clusterSource(new Registry(), log);
  const server = config.METRICS_PORT === undefined ? undefined : await listenMetrics(source, config.METRICS_PORT, config.METRICS_HOST, log);
  return {
    close: async () => {
      source.close();
      if (server) await closeServer(server);
    },
  };
}

function closeServer(s: http.Server): Promise<void> {
  return new Promise((resolve) => {
    s.close(() => resolve());
    s.closeAllConnections();
  });
}
