// A cluster of real Switchboard processes on this machine (issue 17): web/gateway and runner
// processes from the build on one test database, each with its own ports and data directory,
// behind HAProxy with plain round-robin; a sampler of the process table in a worker thread (so a
// busy test never pauses it); and a load of official SDK clients that counts what it asked for.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import pg from "pg";
import { TEST_PACKAGES_DIR } from "./app.js";
import { removeDataDir } from "./data-dir.js";
import { createTestDatabase, type TestDatabase } from "./db.js";
import { holdPort, type HeldPort } from "./ports.js";
import { accountWithKey, freePort, startAppProcess, type AppProcess } from "./process.js";
import { Fatal, waitFor } from "./wait.js";

export type Role = "web" | "gateway" | "runner";

export interface MemberSpec {
  name: string;
  roles: Role[];
  env?: Record<string, string>;
}

/** One process of the cluster; restart() starts it again with the same settings and data directory. */
export interface Member {
  name: string;
  roles: Role[];
  env: Record<string, string>;
  dataDir: string;
  /** http://127.0.0.1:PORT (web and gateway) */
  url: string;
  /** RUNNER_URL (runners) */
  runnerUrl?: string;
  proc: AppProcess;
  pid: number;
  restart(): Promise<void>;
  /** the output of every run of this process so far */
  output(): string;
}

export interface Cluster {
  db: TestDatabase;
  /** HAProxy's address: every process's PUBLIC_URL */
  publicUrl: string;
  haproxy: HaProxy;
  members: Member[];
  member(name: string): Member;
  query<T extends pg.QueryResultRow = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** every process's output, labelled: for failure messages */
  logs(): string;
  close(): Promise<void>;
}

export const LEASE_MS = 6000;
const all = new Set<ChildProcess>();
// A test run that dies without its afterAll still takes its processes with it.
process.once("exit", () => {
  for (const c of all) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
});

export async function startCluster(opts: { members: MemberSpec[]; env?: Record<string, string> }): Promise<Cluster> {
  const db = await createTestDatabase();
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  // HAProxy's public port is held from now on and handed to it as a socket (no window for another
  // process to take it while the apps start with this URL).
  const publicPort = await holdPort();
  const publicUrl = `http://127.0.0.1:${publicPort.port}`;
  const common: Record<string, string> = {
    DATABASE_URL: db.url,
    PUBLIC_URL: publicUrl,
    CLUSTER_SECRET: randomBytes(24).toString("hex"),
    AUTH_SECRET: randomBytes(24).toString("hex"),
    SECRETS_KEY: randomBytes(24).toString("hex"),
    PACKAGES_DIR: TEST_PACKAGES_DIR,
    GIT_ALLOW_FILE: "on",
    WORKERS: "1",
    USAGE_FLUSH_MS: "100",
    RUNNER_LEASE_MS: String(LEASE_MS),
    RESTART_BACKOFF_MS: "200",
    ...opts.env,
  };
  const members: Member[] = [];
  const dirs: string[] = [];
  let haproxy: HaProxy | undefined;
  const cluster: Cluster = {
    db,
    publicUrl,
    get haproxy() {
      return haproxy!;
    },
    members,
    member: (name) => members.find((m) => m.name === name) ?? assertNever(`no member ${name}`),
    query: async (text, params) => (await client.query(text, params)).rows,
    logs: () =>
      [
        haproxy ? `--- haproxy\n${haproxy.output()}` : "",
        ...members.map((m) => `--- ${m.name} (${m.roles.join(",")}, pid ${m.pid})\n${m.output()}`),
      ].join("\n"),
    async close() {
      await haproxy?.stop();
      if (!haproxy) await publicPort.release();
      await Promise.all(members.map((m) => m.proc.stop("SIGKILL")));
      // Whatever a killed runner left behind (its hosted servers, if they outlived it) goes too.
      for (const pid of processesUnder(dirs)) killQuietly(pid);
      await client.end().catch(() => {});
      await db.drop();
      for (const d of dirs) await removeDataDir(d);
    },
  };
  try {
    const started = await Promise.allSettled(
      opts.members.map(async (spec) => {
        const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `switchboard-cluster-${spec.name}-`));
        dirs.push(dataDir);
        const port = await freePort();
        const env: Record<string, string> = {
          ...common,
          ROLES: spec.roles.join(","),
          DATA_DIR: dataDir,
          PORT: String(port),
          HOST: "127.0.0.1",
          LOG_LEVEL: spec.roles.includes("runner") ? "info" : "warn",
        };
        let runnerUrl: string | undefined;
        if (spec.roles.includes("runner")) {
          const runnerPort = await freePort();
          runnerUrl = `http://127.0.0.1:${runnerPort}`;
          Object.assign(env, {
            RUNNER_NAME: spec.name,
            RUNNER_PORT: String(runnerPort),
            RUNNER_HOST: "127.0.0.1",
            RUNNER_URL: runnerUrl,
            RUNNER_CAPACITY_MB: "4096",
          });
        }
        Object.assign(env, spec.env);
        const onlyRunner = !spec.roles.includes("web") && !spec.roles.includes("gateway");
        let earlier = "";
        const launch = async () => {
          const p = await startAppProcess(env, 90_000, { readyUrl: onlyRunner ? `${runnerUrl}/readyz` : undefined });
          all.add(p.child);
          return p;
        };
        const m: Member = {
          name: spec.name,
          roles: spec.roles,
          env,
          dataDir,
          url: `http://127.0.0.1:${port}`,
          runnerUrl,
          proc: await launch(),
          pid: 0,
          async restart() {
            if (m.proc.child.exitCode === null && m.proc.child.signalCode === null) throw new Error(`${m.name} is still running`);
            earlier += `${m.proc.output()}\n--- ${m.name} restarted\n`;
            m.proc = await launch();
            m.pid = m.proc.child.pid!;
          },
          output: () => earlier + m.proc.output(),
        };
        m.pid = m.proc.child.pid!;
        members.push(m);
      }),
    );
    const failed = started.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    members.sort((a, b) => opts.members.findIndex((s) => s.name === a.name) - opts.members.findIndex((s) => s.name === b.name));
    // A runner answers /readyz as soon as its port is open; it is part of the cluster once its row is there.
    const names = members.filter((m) => m.roles.includes("runner")).map((m) => m.name);
    await waitFor(
      "every runner registered",
      async () => ((await cluster.query("select id from runners where id = any($1)", [names])).length === names.length ? true : undefined),
      30_000,
    );
    const front = (role: Role) => members.filter((m) => m.roles.includes(role)).map((m) => ({ name: m.name, port: Number(m.env.PORT) }));
    haproxy = await startHaProxy(publicPort, { web: front("web"), gateway: front("gateway") });
  } catch (e) {
    await cluster.close().catch(() => {});
    throw e;
  }
  return cluster;
}

function assertNever(msg: string): never {
  throw new Error(msg);
}

function killQuietly(pid: number, signal: NodeJS.Signals = "SIGKILL"): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

// ---- The process table ----

function readArgv(pid: string): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return undefined;
  }
}

/** Processes whose command line names one of these directories (what a cluster's processes left). */
function processesUnder(dirs: string[]): number[] {
  const out: number[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    if (readArgv(d)?.some((a) => dirs.some((dir) => a.includes(dir)))) out.push(Number(d));
  }
  return out;
}

export function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs under `ancestor` (its child, grandchild, ...). */
export function descendsFrom(pid: number, ancestor: number): boolean {
  for (let p = parentOf(pid); p !== undefined && p > 1; p = parentOf(p)) if (p === ancestor) return true;
  return false;
}

/** The processes between a runner and each of its hosted servers, servers included (sandbox wrappers and the servers themselves). */
export function deploymentChains(runnerPid: number): number[] {
  const out = new Set<number>();
  for (const pids of serverProcesses().values()) {
    for (const pid of pids) {
      if (!descendsFrom(pid, runnerPid)) continue;
      for (let p: number | undefined = pid; p !== undefined && p !== runnerPid && p > 1; p = parentOf(p)) out.add(p);
    }
  }
  return [...out];
}

/** Every live process under `pid`. */
export function descendantsOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => descendsFrom(p, pid));
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // a zombie is gone for every purpose here
    return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
  } catch {
    return false;
  }
}

/** Node processes running a deployment's server (its `deployments/{id}/app/server.js`), by deployment id. */
export function serverProcesses(): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const argv = readArgv(d);
    if (!argv || !(argv[0] === process.execPath || argv[0]!.endsWith("/node"))) continue;
    const m = argv.map((a) => /deployments\/([^/]+)\/app\/server\.js/.exec(a)).find(Boolean);
    if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), Number(d)]);
  }
  return out;
}

export interface SamplerReport {
  samples: number;
  durationMs: number;
  /** the longest time between two samples */
  maxGapMs: number;
  /** the most server processes seen at once, by deployment id */
  max: Record<string, number>;
  /** moments with two or more processes for one deployment (the first 5 of each) */
  overlaps: { atMs: number; id: string; pids: number[] }[];
  /** each change of a deployment's process set (the last 2000), for failure messages */
  changes: { atMs: number; id: string; pids: number[] }[];
}

// Plain JavaScript for the worker thread: the same scan as serverProcesses().
const SAMPLER = `
const fs = require("node:fs");
const { parentPort, workerData } = require("node:worker_threads");
const re = /deployments\\/([^/]+)\\/app\\/server\\.js/;
const started = Date.now();
const r = { samples: 0, durationMs: 0, maxGapMs: 0, max: {}, overlaps: [], changes: [] };
const last = new Map();
let lastAt = 0;
function sample() {
  const now = Date.now();
  if (lastAt) r.maxGapMs = Math.max(r.maxGapMs, now - lastAt);
  lastAt = now;
  r.samples++;
  const seen = new Map();
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\\d+$/.test(d)) continue;
    let argv;
    try { argv = fs.readFileSync("/proc/" + d + "/cmdline", "utf8").split("\\0"); } catch { continue; }
    if (!(argv[0] === workerData.node || argv[0].endsWith("/node"))) continue;
    for (const a of argv) {
      const m = re.exec(a);
      if (m) { seen.set(m[1], [...(seen.get(m[1]) || []), Number(d)]); break; }
    }
  }
  const at = now - started;
  for (const id of new Set([...seen.keys(), ...last.keys()])) {
    const pids = (seen.get(id) || []).sort((a, b) => a - b);
    r.max[id] = Math.max(r.max[id] || 0, pids.length);
    if (pids.length > 1 && r.overlaps.filter((o) => o.id === id).length < 5) r.overlaps.push({ atMs: at, id, pids });
    if ((last.get(id) || []).join() !== pids.join()) {
      r.changes.push({ atMs: at, id, pids });
      if (r.changes.length > 2000) r.changes.shift();
    }
  }
  last.clear();
  for (const [id, pids] of seen) last.set(id, pids.sort((a, b) => a - b));
  r.durationMs = at;
}
const timer = setInterval(sample, workerData.everyMs);
sample();
parentPort.on("message", (m) => {
  sample();
  parentPort.postMessage(r);
  if (m === "stop") { clearInterval(timer); parentPort.close(); }
});
`;

export interface ProcessSampler {
  report(): Promise<SamplerReport>;
  stop(): Promise<SamplerReport>;
}

/** Samples the process table every `everyMs` in a worker thread until stopped. */
export function startSampler(everyMs = 50): ProcessSampler {
  const worker = new Worker(SAMPLER, { eval: true, workerData: { node: process.execPath, everyMs } });
  let stopped: SamplerReport | undefined;
  const ask = (m: "report" | "stop") =>
    stopped
      ? Promise.resolve(stopped)
      : new Promise<SamplerReport>((resolve, reject) => {
          worker.once("message", resolve);
          worker.once("error", reject);
          worker.postMessage(m);
        });
  return {
    report: () => ask("report"),
    async stop() {
      const r = await ask("stop");
      stopped = r;
      await worker.terminate();
      return r;
    },
  };
}

// ---- HAProxy ----

export interface HaProxyServerStats {
  backend: string;
  server: string;
  status: string;
  /** HTTP responses this server gave through HAProxy */
  responses: number;
  ok: number;
}

export interface HaProxy {
  url: string;
  statsUrl: string;
  stats(): Promise<HaProxyServerStats[]>;
  output(): string;
  stop(): Promise<void>;
}

function findHaproxy(): string | undefined {
  for (const p of ["/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy"]) {
    try {
      execFileSync(p, ["-v"], { stdio: "ignore" });
      return p;
    } catch {
      // next
    }
  }
  return undefined;
}

/** HAProxy from Debian's package; installed here when missing and we are root (as the browser tests install Chromium). */
function haproxyBinary(): string {
  const found = findHaproxy();
  if (found) return found;
  if (process.getuid?.() === 0) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    try {
      execFileSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
      execFileSync("apt-get", ["install", "-y", "-qq", "haproxy"], { stdio: "ignore", env });
    } catch {
      // said below
    }
    const installed = findHaproxy();
    if (installed) return installed;
  }
  throw new Error("HAProxy is not installed: apt-get install haproxy (.ci/run installs it)");
}

// MCP traffic (the gateway's routes) to the gateways, everything else to the web processes: plain
// round-robin, no stickiness, as an operator's load balancer would be set up.
function haproxyConfig(backends: Record<"web" | "gateway", { name: string; port: number }[]>): string {
  const servers = (list: { name: string; port: number }[]) =>
    list.map((s) => `  server ${s.name} 127.0.0.1:${s.port} check inter 500 fall 2 rise 1`).join("\n");
  return `global
  maxconn 2000

defaults
  mode http
  timeout connect 2s
  timeout client 120s
  timeout server 120s
  timeout http-request 10s

listen stats
  bind fd@4
  stats enable
  stats uri /stats

frontend public
  bind fd@3
  acl mcp path_reg ^/[0-9a-f]{32}/(mcp|sse|messages)/?$
  use_backend gateway if mcp
  default_backend web

backend web
  balance roundrobin
  option httpchk
  http-check send meth GET uri /readyz ver HTTP/1.1 hdr host localhost
${servers(backends.web)}

backend gateway
  balance roundrobin
  option httpchk
  http-check send meth GET uri /readyz ver HTTP/1.1 hdr host localhost
${servers(backends.gateway)}
`;
}

/** HAProxy listening on `pub` (a held socket it inherits as fd 3; its stats page on fd 4). */
export async function startHaProxy(pub: HeldPort, backends: Record<"web" | "gateway", { name: string; port: number }[]>): Promise<HaProxy> {
  const bin = haproxyBinary();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-haproxy-"));
  const stats = await holdPort();
  const statsPort = stats.port;
  const port = pub.port;
  const cfg = path.join(dir, "haproxy.cfg");
  await fs.writeFile(cfg, haproxyConfig(backends));
  const child = spawn(bin, ["-db", "-f", cfg], { stdio: ["ignore", "pipe", "pipe", pub.fd, stats.fd] });
  all.add(child);
  // HAProxy has its copies now.
  await Promise.all([pub.release(), stats.release()]);
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const statsUrl = `http://127.0.0.1:${statsPort}/stats`;
  const h: HaProxy = {
    url: `http://127.0.0.1:${port}`,
    statsUrl,
    async stats() {
      const csv = await (await fetch(`${statsUrl};csv`)).text();
      const [head, ...rows] = csv.trim().split("\n");
      const cols = head!.replace(/^# /, "").split(",");
      const at = (r: string[], c: string) => r[cols.indexOf(c)] ?? "";
      return rows
        .map((l) => l.split(","))
        .filter((r) => !["FRONTEND", "BACKEND"].includes(r[1]!) && r[0] !== "stats")
        .map((r) => {
          const n = (c: string) => Number(at(r, c) || 0);
          return {
            backend: r[0]!,
            server: r[1]!,
            status: at(r, "status"),
            responses: n("hrsp_1xx") + n("hrsp_2xx") + n("hrsp_3xx") + n("hrsp_4xx") + n("hrsp_5xx") + n("hrsp_other"),
            ok: n("hrsp_2xx"),
          };
        });
    },
    output: () => out,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
  // Ready when it answers and every server has passed its health check.
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}):\n${out}`);
    const s = await h.stats().catch(() => undefined);
    if (s && s.length > 0 && s.every((x) => x.status === "UP")) return h;
    if (Date.now() > deadline) {
      await h.stop();
      throw new Error(`haproxy's servers did not come up: ${JSON.stringify(s)}\n${out}`);
    }
    await sleep(100);
  }
}

// ---- Users, deployments, waiting ----

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export { Fatal, waitFor };

/** A confirmed account made on one web process (its development outbox is its own) and its API key. */
export function userWithKey(c: Cluster, on: Member, email: string): Promise<string> {
  return accountWithKey(on.proc, email, c.publicUrl);
}

export function api(base: string, key: string, p: string, init: { method?: string; body?: unknown } = {}): Promise<Response> {
  return fetch(`${base}${p}`, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
}

/** Registers `{username}/{name}` and deploys the git fixture through HAProxy; returns the deployment id. */
export async function deployFixture(c: Cluster, key: string, qualifiedName: string, repoUrl: string): Promise<string> {
  const reg = await api(c.publicUrl, key, "/api/servers", {
    method: "POST",
    body: {
      qualifiedName,
      displayName: qualifiedName,
      description: "d",
      keywords: [],
      connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
    },
  });
  if (reg.status !== 201) throw new Error(`register ${qualifiedName}: ${reg.status} ${await reg.text()}`);
  const dep = await api(c.publicUrl, key, `/api/deploy/${qualifiedName}`, { method: "POST", body: { repositoryUrl: repoUrl, env: {} } });
  if (dep.status !== 202) throw new Error(`deploy ${qualifiedName}: ${dep.status} ${await dep.text()}`);
  const [row] = await c.query<{ id: string }>("select id from deployments where server_kind = 'owned' and server_ref = $1", [
    qualifiedName,
  ]);
  return row!.id;
}

export interface DeploymentRow {
  id: string;
  proxy_id: string;
  server_ref: string;
  status: string;
  status_detail: string | null;
  exit_code: number | null;
  restarts: number;
  pid: number | null;
  pid_start: string | null;
  runner_id: string | null;
  fence: string;
  started_at: Date | null;
  updated_at: Date;
}

export async function deploymentRows(c: Cluster): Promise<DeploymentRow[]> {
  return c.query<DeploymentRow>(
    "select id, proxy_id, server_ref, status, status_detail, exit_code, restarts, pid, pid_start, runner_id, fence::text as fence, started_at, updated_at from deployments order by server_ref",
  );
}

/** Waits until each of `ids` is running on `runner` (by its row) with exactly one server process, under that runner's process. */
export async function waitRunningOn(c: Cluster, ids: string[], runner: Member, timeoutMs: number): Promise<DeploymentRow[]> {
  let rows: DeploymentRow[] = [];
  try {
    return await waitFor(
      `deployments ${ids.join(", ")} running on ${runner.name}`,
      async () => {
        rows = (await deploymentRows(c)).filter((r) => ids.includes(r.id));
        const failed = rows.filter((r) => ["failed", "crash_looping"].includes(r.status));
        if (failed.length) throw new Fatal(`deployments failed: ${JSON.stringify(failed)}`);
        if (rows.length !== ids.length || rows.some((r) => r.status !== "running" || r.runner_id !== runner.name)) return undefined;
        const procs = serverProcesses();
        return rows.every((r) => procs.get(r.id)?.length === 1 && descendsFrom(procs.get(r.id)![0]!, runner.pid)) ? rows : undefined;
      },
      timeoutMs,
      50,
    );
  } catch (e) {
    throw new Error(
      `${(e as Error).message}\nrows: ${JSON.stringify(rows)}\nserver processes: ${JSON.stringify([...serverProcesses()])}\n${c.logs()}`,
    );
  }
}

/** Waits until every deployment is running on some runner; a deployment that failed ends the wait at once, with its rows in the error. */
export async function waitAllRunning(c: Cluster, count: number, timeoutMs: number): Promise<DeploymentRow[]> {
  let rows: DeploymentRow[] = [];
  try {
    return await waitFor(
      `${count} deployments running on runners`,
      async () => {
        rows = await deploymentRows(c);
        const failed = rows.filter((r) => ["failed", "crash_looping"].includes(r.status));
        if (failed.length) throw new Fatal(`deployments failed: ${JSON.stringify(failed)}`);
        return rows.length === count && rows.every((x) => x.status === "running" && x.runner_id) ? rows : undefined;
      },
      timeoutMs,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}\nrows: ${JSON.stringify(rows)}\n${c.logs()}`);
  }
}

export const mcpUrl = (base: string, proxyId: string) => `${base}/${proxyId}/mcp`;

// ---- MCP load through HAProxy ----

export interface LoadTarget {
  deploymentId: string;
  url: string;
  key: string;
}

export interface LoadFailure {
  atMs: number;
  session: number;
  deploymentId: string;
  /** the HTTP status when the gateway answered one, else undefined */
  status?: number;
  message: string;
}

/**
 * `sessions` official SDK clients (Streamable HTTP), spread over the targets, calling the fixture's
 * echo tool. A client whose call fails is dropped and a new one initializes (as an MCP client
 * would). Every JSON-RPC request sent is counted, and whether the gateway answered it with 2xx.
 */
export class McpLoad {
  readonly started = Date.now();
  sent = 0;
  answered = 0;
  /** requests answered with 2xx, by proxy id (what 'Total Usage' of each server must rise by) */
  readonly answeredBy = new Map<string, number>();
  calls = 0;
  failures: LoadFailure[] = [];
  /** per session: when its last successful call ended, and how many it made */
  readonly sessions: { deploymentId: string; lastOkMs: number; ok: number }[];
  private stopping = false;
  private running: Promise<void>[] = [];

  constructor(
    private readonly targets: LoadTarget[],
    sessions: number,
  ) {
    this.sessions = Array.from({ length: sessions }, (_, i) => ({
      deploymentId: targets[i % targets.length]!.deploymentId,
      lastOkMs: -1,
      ok: 0,
    }));
  }

  /** Every session makes `calls` calls once, then closes; resolves when all are done. */
  async runOnce(calls: number): Promise<void> {
    await Promise.all(this.sessions.map((_, i) => this.session(i, calls)));
  }

  /** Every session calls until stop(), `pauseMs` apart. */
  start(pauseMs: number): void {
    this.running = this.sessions.map((_, i) => this.session(i, Infinity, pauseMs));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.running);
  }

  private countingFetch: typeof fetch = async (input, init) => {
    let n = 0;
    if (init?.method === "POST" && typeof init.body === "string") {
      const body = JSON.parse(init.body) as unknown;
      n = (Array.isArray(body) ? body : [body]).filter(
        (m: { method?: string; id?: unknown }) => m.method !== undefined && m.id !== undefined,
      ).length;
    }
    this.sent += n;
    const r = await fetch(input, init);
    if (r.ok && n) {
      this.answered += n;
      const proxyId = new URL(String(input)).pathname.split("/")[1]!;
      this.answeredBy.set(proxyId, (this.answeredBy.get(proxyId) ?? 0) + n);
    }
    return r;
  };

  private async session(i: number, calls: number, pauseMs = 0): Promise<void> {
    const target = this.targets[i % this.targets.length]!;
    const s = this.sessions[i]!;
    let client: Client | undefined;
    let made = 0;
    while (made < calls && !(this.stopping && calls === Infinity)) {
      try {
        if (!client) {
          client = new Client({ name: `cluster-load-${i}`, version: "1.0.0" });
          await client.connect(
            new StreamableHTTPClientTransport(new URL(target.url), {
              requestInit: { headers: { authorization: `Bearer ${target.key}` } },
              fetch: this.countingFetch,
            }),
          );
        }
        const r = (await client.callTool({ name: "echo", arguments: { message: `s${i}-${made}` } })) as { content: { text: string }[] };
        if (r.content[0]?.text !== `s${i}-${made}`) throw new Error(`echo answered ${JSON.stringify(r)}`);
        this.calls++;
        made++;
        s.ok++;
        s.lastOkMs = Date.now() - this.started;
      } catch (e) {
        const status = (e as { code?: unknown }).code;
        this.failures.push({
          atMs: Date.now() - this.started,
          session: i,
          deploymentId: target.deploymentId,
          status: typeof status === "number" && status >= 100 ? status : undefined,
          message: (e as Error).message,
        });
        if (calls !== Infinity) return; // a fixed run stops at its first failure: the test reports it
        await client?.close().catch(() => {});
        client = undefined;
        await sleep(200);
      }
      if (pauseMs) await sleep(pauseMs);
    }
    await client?.close().catch(() => {});
  }
}
