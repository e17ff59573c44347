import type { MiddlewareHandler } from "hono";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { STATUSES } from "~/shared/deployments.js";
import type { Db } from "../../db/client.js";
import type { Logger } from "../../log.js";
import type { CallRecord, GatewayObserver } from "../gateway/observe.js";
import type { OutputStats, RunnerEvent } from "../runtime/runner.js";
import { httpMethodLabel, mcpMethodLabel, routeLabel, statusLabel } from "./labels.js";
import { deploymentsByStatus } from "./repo.js";

// The platform's Prometheus metrics, in a registry of its own (never prom-client's global one, so
// several platforms in one process, as in the tests, keep theirs apart). Counters and histograms
// move where things happen, with O(1) work on the gateway's hot path; gauges are read when
// Prometheus scrapes (sessions from the gateways, deployments from the database, memory from the
// runner). Labels have bounded values only (labels.ts): never deployment ids, tool names or paths.

const MiB = 1024 * 1024;
/** Seconds: the gateway answers in about a millisecond; a tool may run for a minute. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const WAKE_BUCKETS = [0.1, 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30, 60];
const INSTALL_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** What this process's runner tells the metrics at scrape time. */
export interface RunnerGauges {
  runs(id: string): boolean;
  rssBytes(id: string): number;
  /** what the platform read from its server and what that cost */
  outputStats(id: string): OutputStats | undefined;
  /** RUNNER_CAPACITY_MB (or its default) */
  capacityMb: number;
  /** DEPLOY_MEMORY_MB: what each deployment reserves */
  memoryMb: number;
}

/** What this process's gateways tell the metrics at scrape time, summed over them (gateway's `totalCounts`). */
export interface GatewayGauges {
  sessions: number;
  streamBytesHeld: number;
  /** since start */
  streamsClosedSlow: number;
  /** since start */
  messagesDropped: number;
}

export interface MetricsDeps {
  db: Db;
  log: Logger;
  /** this process's gateways, read at scrape */
  gateways(): GatewayGauges;
  runner?: RunnerGauges;
}

export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter;
  private readonly httpDuration: Histogram;
  private readonly gatewayRequests: Counter;
  private readonly gatewayDuration: Histogram;
  private readonly wakes: Counter;
  private readonly wakeDuration: Histogram;
  /** only in a process with the runner role */
  private readonly restarts?: Counter;
  private readonly installs?: Histogram;
  /** deployments this runner was told about (by its events), pruned at scrape when it no longer runs them */
  private readonly held = new Set<string>();
  /** deployment id -> when its install began */
  private readonly installing = new Map<string, number>();
  private pruneAt = 256;

  constructor(private readonly d: MetricsDeps) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.httpRequests = new Counter({
      name: "switchboard_http_requests_total",
      help: "HTTP requests to pages and the API, by matched route pattern, method and status code",
      labelNames: ["method", "route", "status"],
      registers,
    });
    this.httpDuration = new Histogram({
      name: "switchboard_http_request_duration_seconds",
      help: "Time to answer HTTP requests to pages and the API, by matched route pattern and method",
      labelNames: ["method", "route"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.gatewayRequests = new Counter({
      name: "switchboard_gateway_requests_total",
      help: "MCP requests answered through the gateway, by JSON-RPC method and outcome (ok, error, tool_error, cancelled, rate_limited: refused by fair use)",
      labelNames: ["method", "outcome"],
      registers,
    });
    this.gatewayDuration = new Histogram({
      name: "switchboard_gateway_request_duration_seconds",
      help: "Time from an MCP request reaching the gateway to its answer, by JSON-RPC method",
      labelNames: ["method"],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    new Gauge({
      name: "switchboard_gateway_sessions_open",
      help: "MCP sessions open in this process's gateways",
      registers,
      collect() {
        this.set(d.gateways().sessions);
      },
    });
    new Gauge({
      name: "switchboard_gateway_stream_bytes_held",
      help: "Bytes written to clients' event streams and not yet taken by them, in this process (bounded per stream by GATEWAY_STREAM_BUFFER_BYTES, per deployment by GATEWAY_DEPLOYMENT_BUFFER_BYTES)",
      registers,
      collect() {
        this.set(d.gateways().streamBytesHeld);
      },
    });
    let stalledSeen = 0;
    new Counter({
      name: "switchboard_gateway_streams_closed_slow_total",
      help: "Client event streams closed because their client did not take what was written to them (it resumes or starts over)",
      registers,
      collect() {
        const stalled = d.gateways().streamsClosedSlow;
        if (stalled > stalledSeen) this.inc(stalled - stalledSeen);
        stalledSeen = stalled;
      },
    });
    let droppedSeen = 0;
    new Counter({
      name: "switchboard_gateway_messages_dropped_total",
      help: "Messages the gateway dropped: a server's requests to clients beyond the 100 waiting for an answer, answers to requests a session was not asked, client notifications that are not one",
      registers,
      collect() {
        const dropped = d.gateways().messagesDropped;
        if (dropped > droppedSeen) this.inc(dropped - droppedSeen);
        droppedSeen = dropped;
      },
    });
    // Sleeping deployments woken by a request (docs/hosting.md#sleeping), by the gateway process that waited for them.
    this.wakes = new Counter({
      name: "switchboard_deployment_wakes_total",
      help: "Sleeping deployments woken by a request, by outcome (ok, failed, timeout, refused: over the owner's plan)",
      labelNames: ["outcome"],
      registers,
    });
    this.wakeDuration = new Histogram({
      name: "switchboard_deployment_wake_seconds",
      help: "From the request that woke a sleeping deployment to the deployment answering (successful wakes)",
      buckets: WAKE_BUCKETS,
      registers,
    });
    const log = d.log;
    new Gauge({
      name: "switchboard_deployments",
      help: "Deployments by status, across the whole platform (read from the database at scrape)",
      labelNames: ["status"],
      registers,
      // Every process sees the same rows: several processes' figures are the same, not a sum.
      aggregator: "max",
      async collect() {
        let counts: Map<string, number>;
        try {
          counts = await deploymentsByStatus(d.db);
        } catch (e) {
          // A scrape still answers with everything else while the database is away.
          log.warn({ err: e }, "metrics: could not count deployments");
          this.reset();
          return;
        }
        for (const s of STATUSES) this.set({ status: s }, counts.get(s) ?? 0);
        for (const [s, n] of counts) if (!(STATUSES as readonly string[]).includes(s)) this.set({ status: s }, n);
      },
    });
    if (d.runner) {
      this.restarts = new Counter({
        name: "switchboard_deployment_restarts_total",
        help: "Deployments' processes that ended and are started again (crashes), on this runner",
        registers,
      });
      this.installs = new Histogram({
        name: "switchboard_deployment_install_duration_seconds",
        help: "Time to install (and build) a deployment before its process starts, on this runner, by outcome (ok, failed)",
        labelNames: ["outcome"],
        buckets: INSTALL_BUCKETS,
        registers,
      });
      this.runnerGauges(d.runner);
    }
  }

  /** Read at scrape: what the runner holds, pruned of what it no longer runs. */
  private runnerGauges(r: RunnerGauges) {
    const registers = [this.registry];
    const held = this.held;
    const prune = () => this.prune();
    new Gauge({
      name: "switchboard_runner_memory_bytes",
      help: "This runner's memory: deployments = resident memory of its deployments' processes, reserved = what they reserve (DEPLOY_MEMORY_MB each), capacity = RUNNER_CAPACITY_MB",
      labelNames: ["kind"],
      registers,
      collect() {
        prune();
        let rss = 0;
        for (const id of held) rss += r.rssBytes(id);
        this.set({ kind: "deployments" }, rss);
        this.set({ kind: "reserved" }, held.size * r.memoryMb * MiB);
        this.set({ kind: "capacity" }, r.capacityMb * MiB);
      },
    });
    // What the deployments' servers cost the platform itself (docs/hosting.md#what-a-server-costs-the-platform),
    // over their current processes: the sum, and the highest one (to set the budgets from figures).
    const output = (name: string, help: string, pick: (s: OutputStats) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ["stat"],
        registers,
        collect() {
          prune();
          let sum = 0;
          let max = 0;
          for (const id of held) {
            const s = r.outputStats(id);
            if (!s) continue;
            const v = pick(s);
            sum += v;
            max = Math.max(max, v);
          }
          this.set({ stat: "sum" }, sum);
          this.set({ stat: "max" }, max);
        },
      });
    output(
      "switchboard_runner_output_cpu_seconds",
      "Seconds of this process's event loop spent reading, parsing and routing deployments' output, over their current processes (stat: sum, or max of one deployment)",
      (s) => s.cpuSeconds,
    );
    output(
      "switchboard_runner_output_throttled_seconds",
      "Seconds the platform held back reading deployments' output because their budget (DEPLOY_MESSAGES_PER_SECOND, DEPLOY_OUTPUT_BYTES_PER_SECOND) was spent (stat: sum, or max of one deployment)",
      (s) => s.throttledMs / 1000,
    );
    output(
      "switchboard_runner_input_held_bytes",
      "Bytes of requests held for deployments' servers that have not read them yet (at most DEPLOY_STDIN_BUFFER_BYTES each; stat: sum, or max of one deployment)",
      (s) => s.inputHeldBytes,
    );
    new Gauge({
      name: "switchboard_runner_deployments",
      help: "Deployments this runner runs, starts or restarts",
      registers,
      collect() {
        prune();
        this.set(held.size);
      },
    });
  }

  /** One record per answered MCP request: two label lookups and a bucket search, nothing more. */
  readonly observer: GatewayObserver = {
    callDone: (r: CallRecord) => {
      const method = mcpMethodLabel(r.method);
      this.gatewayRequests.inc({ method, outcome: r.outcome });
      this.gatewayDuration.observe({ method }, r.durationMs / 1000);
    },
  };

  /** Forgets deployments the runner no longer runs (stopped, moved, stopped while installing). */
  private prune(): void {
    const r = this.d.runner;
    if (!r) return;
    for (const id of this.held) if (!r.runs(id)) this.held.delete(id);
    for (const id of this.installing.keys()) if (!r.runs(id)) this.installing.delete(id);
  }

  /** The runner's events (restarts, install times), as the deployments feature receives them. */
  /** A wake this process did. */
  woke(seconds: number, outcome: string): void {
    this.wakes.inc({ outcome });
    if (outcome === "ok") this.wakeDuration.observe(seconds);
  }

  runnerEvent(id: string, e: RunnerEvent): void {
    // Scrapes prune as well; without a scraper, this keeps the sets at what the runner holds.
    if (this.held.size + this.installing.size >= this.pruneAt) {
      this.prune();
      this.pruneAt = Math.max(256, 2 * (this.held.size + this.installing.size));
    }
    switch (e.type) {
      case "installing":
        this.held.add(id);
        this.installing.set(id, performance.now());
        return;
      case "starting":
      case "failed": {
        const began = this.installing.get(id);
        if (began !== undefined) {
          this.installing.delete(id);
          this.installs?.observe({ outcome: e.type === "starting" ? "ok" : "failed" }, (performance.now() - began) / 1000);
        }
        return;
      }
      case "spawned":
      case "running":
        this.held.add(id);
        return;
      case "crashed":
        this.restarts?.inc();
        return;
    }
  }

  /** Requests to pages and the API by the route pattern that answered them (after the handler ran, Hono knows which). */
  httpMiddleware(): MiddlewareHandler {
    return async (c, next) => {
      const started = performance.now();
      try {
        await next();
      } finally {
        const method = httpMethodLabel(c.req.method);
        const route = routeLabel(c.req.routePath);
        this.httpRequests.inc({ method, route, status: statusLabel(c.res.status) });
        this.httpDuration.observe({ method, route }, (performance.now() - started) / 1000);
      }
    };
  }

  /** The Prometheus text exposition of everything above. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
