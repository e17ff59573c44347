// Gateway benchmark: the same tool-call load (server-everything's echo, official SDK client,
// 1 and 8 concurrent sessions) three ways in one run - direct stdio, supergateway (stateful
// Streamable HTTP, one child per session) and Switchboard's gateway (one sandboxed child per
// deployment, many sessions), the latter with the owner's API key and with an OAuth access token
// got through the real authorization flow - printing calls/s, p50 and p99 for each, and the budgets.
// A remote lane: the same package serving streamable HTTP as a remote server, called directly and
// through a Switchboard connection to it (the runner's link, the guarded outbound fetch).
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { loadConfig } from "../src/server/config.js";
import { createPlatform, type Platform } from "../src/server/platform.js";
import { projectRoot } from "../src/server/paths.js";
import { oauthTokens } from "~support/gateway-oauth.js";
import { startAppProcess } from "~support/process.js";
import { runBench, waitUntilRunning, withBenchDatabase } from "./bench-database.js";

const PACKAGE = "@modelcontextprotocol/server-everything";
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 8) * 1000;
/** each load first runs this long unmeasured (BENCH_WARMUP_MS), for steady-state figures */
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 2000);
/** requests a minute fair use allows (docs/gateway.md#fair-use): on, above what the load sends; BENCH_RATE=0 turns it off to compare */
const FAIR_USE_RATE = process.env.BENCH_RATE ?? "100000000";
const LOADS = (process.env.BENCH_LOADS ?? "1,8").split(",").map(Number);
const PACKAGES_DIR = process.env.BENCH_PACKAGES_DIR ?? path.join(os.tmpdir(), "switchboard-bench-packages");

interface Result {
  callsPerSec: number;
  p50: number;
  p99: number;
  calls: number;
  /** calls made including the warm-up */
  allCalls?: number;
  /** CPU time of this process (the platform: gateway, request log, metrics) per call, in µs, for the ways it serves */
  cpuPerCall?: number;
  /** of which in the kernel (sockets, pipes, wake-ups) */
  sysPerCall?: number;
}

/** BENCH_WAYS: a comma-separated subset of the ways below (default: all), to look at one change quickly */
const ONLY = process.env.BENCH_WAYS?.split(",").map((w) => w.trim());

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** One load run in a separate process (a client is never the gateway's own process). */
function load(data: Record<string, unknown>): Promise<Result> {
  return new Promise((resolve, reject) => {
    const p = spawn(
      process.execPath,
      [
        "--no-warnings",
        ...(process.env.BENCH_CLIENT_FLAGS?.split(" ").filter(Boolean) ?? []),
        path.join(projectRoot, "scripts/bench-gateway-load.mjs"),
        JSON.stringify({ durationMs: DURATION_MS, warmupCalls: 50, warmupMs: WARMUP_MS, ...data }),
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    p.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    p.once("error", reject);
    p.once("exit", (code) => {
      if (code !== 0) return reject(new Error(`load generator exited with ${code}`));
      resolve(JSON.parse(out) as Result);
    });
  });
}

async function waitForPort(port: number, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((r) => {
      const s = net.connect(port, "127.0.0.1", () => (s.end(), r(true)));
      s.on("error", () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`nothing listens on ${port}`);
}

/** A confirmed account signed in through better-auth's API: its session cookie, and an API key made with it. */
async function benchOwner(platform: Platform): Promise<{ cookie: string; key: string }> {
  const { auth } = platform.services;
  const email = `owner-${randomUUID()}@bench.example`;
  const password = randomBytes(18).toString("base64url");
  await auth.api.signUpEmail({ body: { email, password, name: "bench" } });
  await platform.database.pool.query(`update "user" set email_verified = true where email = $1`, [email]);
  const signedIn = await auth.api.signInEmail({ body: { email, password }, asResponse: true });
  const cookie = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  const base = platform.config.PUBLIC_URL;
  const r = await fetch(`${base}/api/auth/apikeys`, {
    method: "POST",
    headers: { cookie, origin: base, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", scopes: ["mcp", "deploy", "servers"] }),
  });
  if (r.status !== 201) throw new Error(`api key: ${r.status} ${await r.text()}`);
  return { cookie, key: ((await r.json()) as { apiKey: string }).apiKey };
}

/** Stands in for an OpenTelemetry collector: takes OTLP/HTTP JSON batches and counts their spans. */
async function collectorStandIn(): Promise<{ url: string; spans(): number; close(): Promise<void> }> {
  let spans = 0;
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      spans += (body.match(/"spanId"/g) ?? []).length;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    spans: () => spans,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const fmt = (r: Result) =>
  `${r.callsPerSec.toFixed(0).padStart(6)} calls/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms   (${r.calls} calls)${r.cpuPerCall === undefined ? "" : `   platform CPU ${r.cpuPerCall.toFixed(0)} µs/call (kernel ${(r.sysPerCall ?? 0).toFixed(0)})`}`;

/** A load whose calls this process serves: what they cost it in CPU (all its threads), per call. */
async function measured(run: () => Promise<Result>): Promise<Result> {
  const before = process.cpuUsage();
  const r = await run();
  const used = process.cpuUsage(before);
  const n = Math.max(1, r.allCalls ?? r.calls);
  return { ...r, cpuPerCall: (used.user + used.system) / n, sysPerCall: used.system / n };
}

async function main() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-bench-gateway-"));
  const children: ChildProcess[] = [];
  const stops: (() => Promise<unknown>)[] = [];
  try {
    await withBenchDatabase("sb_bench_gateway", {}, async (database, dbUrl) => {
      const port = await freePort();
      // What operators run with: the request log (on by default), metrics scraped once a second,
      // and traces to a local collector stand-in when BENCH_TRACES=on. BENCH_OBSERVE=off turns the log off.
      const observe = process.env.BENCH_OBSERVE !== "off";
      const collector = process.env.BENCH_TRACES === "on" ? await collectorStandIn() : undefined;
      if (collector) stops.push(() => collector.close());
      const metricsToken = randomBytes(16).toString("hex");
      const config = loadConfig({
        NODE_ENV: "production",
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        DATABASE_URL: dbUrl,
        DATA_DIR: dataDir,
        PACKAGES_DIR,
        LOG_LEVEL: "info",
        SANDBOX: process.env.BENCH_SANDBOX ?? "auto",
        REQUEST_LOG_RETENTION_DAYS: observe ? "7" : "0",
        // Every row stays, so the rows written can be checked against the calls made (the trim still runs).
        REQUEST_LOG_MAX_ROWS: "1000000",
        METRICS_TOKEN: metricsToken,
        // Fair use on (its check runs on every request), with a budget the load stays under.
        GATEWAY_RATE_FREE: FAIR_USE_RATE,
        // The remote lane's server listens on this machine's loopback: the operator allows it.
        SANDBOX_EGRESS_ALLOW: "127.0.0.1",
        ...(collector ? { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } : {}),
      });
      // Production logging (one line per MCP request) into /dev/null: its cost is part of the figures.
      const log = pino(
        { level: process.env.BENCH_LOG_LEVEL ?? "info" },
        pino.destination({ dest: process.env.BENCH_LOG_FILE ?? "/dev/null", sync: true }),
      );
      // Its runner also takes traffic forwarded by a gateway in another process (the cluster's hop).
      const clusterSecret = randomBytes(24).toString("hex");
      const runnerPort = await freePort();
      const platform = await createPlatform({
        config,
        log,
        database,
        clusterSecret,
        runnerListen: { host: "127.0.0.1", port: runnerPort },
      });
      const runtime = platform.runtime!;
      const server = http.createServer();
      await platform.listen(server, port, "127.0.0.1");

      // The package once, for all three ways (the same files the deployment runs).
      const { argv } = await runtime.installer.npmCommand({ kind: "npm", package: PACKAGE, version: null, args: [] });
      const [command, ...args] = argv as [string, ...string[]];
      const childEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: os.tmpdir() };

      // Switchboard: a real deployment of the package, reached with the owner's API key, and with
      // an OAuth access token for it (registration, PKCE, consent and token exchange over HTTP).
      await database.pool.query(
        `insert into mcp_servers (id, name, description, category, type, source, tags, npx_command, is_approved) values ('everything', 'Everything', 'bench', 'Featured', 'Reference', 'official', '{}', $1, true)`,
        [`npx -y ${PACKAGE}`],
      );
      const { cookie, key } = await benchOwner(platform);
      const r = await fetch(`${config.PUBLIC_URL}/api/deploy/everything`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: "{}",
      });
      if (r.status !== 202) throw new Error(`deploy: ${r.status} ${await r.text()}`);
      const dep = ((await r.json()) as { deploymentInfo: { id: string; url: string } }).deploymentInfo;
      await waitUntilRunning(database, dep.id);
      const { accessToken } = await oauthTokens(config.PUBLIC_URL, cookie, dep.url);

      // The remote lane: the package as a remote server (streamable HTTP), and a connection to it.
      const remotePort = await freePort();
      children.push(
        spawn(command, [...args, "streamableHttp"], { stdio: "ignore", env: { ...process.env, ...childEnv, PORT: String(remotePort) } }),
      );
      await waitForPort(remotePort);
      const remoteUrl = `http://127.0.0.1:${remotePort}/mcp`;
      const cr = await fetch(`${config.PUBLIC_URL}/api/connections`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "everything-remote", url: remoteUrl }),
      });
      if (cr.status !== 202) throw new Error(`connect: ${cr.status} ${await cr.text()}`);
      const conn = ((await cr.json()) as { connection: { id: string; url: string } }).connection;
      await waitUntilRunning(database, conn.id);

      // The toolset lane: the deployment and the connection behind one URL; its calls go to the
      // deployment's echo as `everything_echo` (the runner's toolset server, then the deployment's own URL).
      const tr = await fetch(`${config.PUBLIC_URL}/api/toolsets`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "bench", members: [{ deployment_id: dep.id }, { connection_id: conn.id, prefix: "remote" }] }),
      });
      if (tr.status !== 202) throw new Error(`toolset: ${tr.status} ${await tr.text()}`);
      const toolset = ((await tr.json()) as { toolset: { id: string; url: string } }).toolset;
      await waitUntilRunning(database, toolset.id);

      // A gateway-only process (ROLES=gateway) that forwards each request to the runner above over
      // its kept-alive, authenticated connection: what every request costs in a cluster.
      const front = await startAppProcess({
        NODE_ENV: "production",
        ROLES: "gateway",
        WORKERS: "1",
        DATABASE_URL: dbUrl,
        CLUSTER_SECRET: clusterSecret,
        PUBLIC_URL: config.PUBLIC_URL,
        DATA_DIR: path.join(dataDir, "front"),
        LOG_LEVEL: "warn",
        GATEWAY_RATE_FREE: FAIR_USE_RATE,
      });
      stops.push(() => front.stop("SIGTERM"));
      const hopUrl = `${front.url}/${new URL(dep.url).pathname.split("/")[1]}/mcp`;

      // supergateway: stateful Streamable HTTP, the same command.
      const sgPort = await freePort();
      const sg = spawn(
        process.execPath,
        [
          path.join(projectRoot, "node_modules/supergateway/dist/index.js"),
          "--stdio",
          [command, ...args].join(" "),
          "--outputTransport",
          "streamableHttp",
          "--stateful",
          "--port",
          String(sgPort),
          "--logLevel",
          "none",
        ],
        { stdio: "ignore", env: { ...process.env, ...childEnv } },
      );
      children.push(sg);
      await waitForPort(sgPort);
      const floorPort = await freePort();
      children.push(
        spawn(process.execPath, [path.join(projectRoot, "scripts/bench-gateway-floor.mjs"), String(floorPort)], { stdio: "ignore" }),
      );
      await waitForPort(floorPort);

      console.log(
        `server: ${PACKAGE} (echo); client: official MCP SDK, ${DURATION_MS / 1000} s closed loop per run; Switchboard sandbox: ${runtime.runner.sandbox.kind}`,
      );
      console.log(
        `request log: ${observe ? "on" : "off"}; metrics: on, /metrics scraped every 5 s; traces: ${collector ? "on (to a local collector stand-in)" : "off"}; fair use: ${FAIR_USE_RATE === "0" ? "off" : `on (${FAIR_USE_RATE} requests a minute)`}`,
      );
      const scraper = setInterval(
        () =>
          void fetch(`${config.PUBLIC_URL}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
            .then((m) => m.text())
            .catch(() => {}),
        5000,
      );
      const ways = [
        "direct",
        "supergateway",
        "switchboard (api key)",
        "switchboard (oauth)",
        "gateway -> runner",
        "v2 session (2025)",
        "v2 stateless (2026)",
        "raw session (2025)",
        "raw stateless (2026)",
        "remote direct",
        "switchboard (connection)",
        "switchboard (toolset)",
        "http floor",
      ];
      const results: Record<string, Record<number, Result>> = Object.fromEntries(ways.map((w) => [w, {}]));
      const run = async (way: string, sessions: number, data: Record<string, unknown>, served = false) => {
        if (ONLY && !ONLY.includes(way)) return;
        results[way]![sessions] = served ? await measured(() => load({ sessions, ...data })) : await load({ sessions, ...data });
      };
      for (const sessions of LOADS) {
        await run("direct", sessions, { mode: "stdio", command, args, env: childEnv });
        await run("supergateway", sessions, { mode: "http", url: `http://127.0.0.1:${sgPort}/mcp` });
        await run("switchboard (api key)", sessions, { mode: "http", url: dep.url, key }, true);
        await run("switchboard (oauth)", sessions, { mode: "http", url: dep.url, key: accessToken }, true);
        // The runner's side of the hop is this process; the front gateway is another.
        await run("gateway -> runner", sessions, { mode: "http", url: hopUrl, key }, true);
        // The same deployment, the SDK v2 client both ways: the session lane and the stateless lane.
        await run("v2 session (2025)", sessions, { mode: "v2-session", url: dep.url, key }, true);
        await run("v2 stateless (2026)", sessions, { mode: "v2-stateless", url: dep.url, key }, true);
        // And by hand, the same client work both ways: what each lane costs the gateway.
        await run("raw session (2025)", sessions, { mode: "raw-session", url: dep.url, key }, true);
        await run("raw stateless (2026)", sessions, { mode: "raw-stateless", url: dep.url, key }, true);
        // The remote server called directly, and through a connection (the gateway, then the runner's link to it).
        await run("remote direct", sessions, { mode: "http", url: remoteUrl });
        await run("switchboard (connection)", sessions, { mode: "http", url: conn.url, key }, true);
        // The deployment's echo through a toolset of it and the connection: two gateways, the toolset's server between.
        await run("switchboard (toolset)", sessions, { mode: "http", url: toolset.url, key, tool: "everything_echo" }, true);
        await run("http floor", sessions, { mode: "http", url: `http://127.0.0.1:${floorPort}/mcp` });
        console.log(`\n${sessions} session${sessions > 1 ? "s" : ""}:`);
        for (const way of ways) if (results[way]![sessions]) console.log(`  ${way.padEnd(22)} ${fmt(results[way]![sessions]!)}`);
      }
      console.log(
        "\n(gateway -> runner: a gateway-only process admits each request and forwards it to the runner process holding the server, as in a cluster)",
      );
      console.log(
        "\n(v2 session / v2 stateless: @modelcontextprotocol/client as shipped (initialize, a session) and pinned to 2026-07-28 (no session, the envelope on every request), same deployment)",
      );
      console.log(
        "\n(raw session / raw stateless: the same tools/call by hand over kept-alive HTTP, with a session id or with the 2026-07-28 envelope and headers: the client's work is the same, so the difference is the gateway's)",
      );
      console.log(
        "\n(remote direct / switchboard (connection): the same package serving streamable HTTP as a remote server, called by the client itself, and through a Switchboard connection to it: one upstream session the gateway's sessions share)",
      );
      console.log(
        "\n(switchboard (toolset): the deployment's echo as everything_echo through a toolset of it and the connection: the toolset's gateway, its server on the runner, then the deployment's own gateway)",
      );
      console.log("\n(http floor: the SDK client against a canned HTTP answer with no server behind it - what client and HTTP cost alone)");
      clearInterval(scraper);
      await new Promise((r) => setTimeout(r, 2 * config.USAGE_FLUSH_MS)); // the last batch of the log
      const logged = (await database.pool.query<{ n: number }>("select count(*)::int as n from request_log")).rows[0]!.n;
      const metrics = await (await fetch(`${config.PUBLIC_URL}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
      const counted = [...metrics.matchAll(/^switchboard_gateway_requests_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
      console.log(
        `\n(observed: ${logged.toLocaleString("en-US")} request log rows written, ${counted.toLocaleString("en-US")} calls in switchboard_gateway_requests_total${collector ? `, ${collector.spans().toLocaleString("en-US")} spans received` : ""})`,
      );
      console.log("budgets:");
      for (const sessions of LOADS) {
        if (ways.some((w) => !results[w]![sessions])) {
          console.log(`  ${sessions} session(s): BENCH_WAYS ran a subset: no budgets`);
          continue;
        }
        const sb = results["switchboard (api key)"]![sessions]!;
        const oauth = results["switchboard (oauth)"]![sessions]!;
        const sgr = results.supergateway![sessions]!;
        const d = results.direct![sessions]!;
        const ratio = sb.callsPerSec / sgr.callsPerSec;
        // The gateway's own cost: what it adds at p50 beyond the client and HTTP alone (the floor) and the server (direct).
        const own = sb.p50 - results["http floor"]![sessions]!.p50 - d.p50;
        const want = sessions === 1 ? 1.8 : 2.5;
        console.log(
          `  ${sessions} session(s): ${ratio.toFixed(2)}x supergateway's calls/s (>= ${want}x: ${ratio >= want ? "OK" : "OVER"}); own cost ${own.toFixed(2)} ms at p50 (p50 - http floor - direct${sessions === 1 ? `; <= 0.3 ms: ${own <= 0.3 ? "OK" : "OVER"}` : ""}); p50 ${(sb.p50 - d.p50).toFixed(2)} ms over direct stdio (<= 3 ms: ${sb.p50 - d.p50 <= 3 ? "OK" : "OVER"}); p99 ${(sb.p99 / sb.p50).toFixed(1)}x its p50 (< 5x: ${sb.p99 < 5 * sb.p50 ? "OK" : "OVER"})`,
        );
        const diff = (oauth.callsPerSec / sb.callsPerSec - 1) * 100;
        const hop = results["gateway -> runner"]![sessions]!;
        const hopRatio = hop.callsPerSec / sgr.callsPerSec;
        console.log(
          `  ${sessions} session(s), gateway -> runner: +${(hop.p50 - sb.p50).toFixed(2)} ms at p50 for the hop (<= 0.5 ms: ${hop.p50 - sb.p50 <= 0.5 ? "OK" : "OVER"}); ${hopRatio.toFixed(1)}x supergateway's calls/s${sessions === 8 ? ` (>= 2x: ${hopRatio >= 2 ? "OK" : "OVER"})` : ""}`,
        );
        const lanes = results["v2 stateless (2026)"]![sessions]!.callsPerSec / results["v2 session (2025)"]![sessions]!.callsPerSec;
        const rawLanes = results["raw stateless (2026)"]![sessions]!.callsPerSec / results["raw session (2025)"]![sessions]!.callsPerSec;
        console.log(
          `  ${sessions} client(s), stateless lane: ${rawLanes.toFixed(2)}x the session lane's calls/s by hand (the gateway's own cost; not slower, here within 5% noise: ${rawLanes >= 0.95 ? "OK" : "OVER"}); ${lanes.toFixed(2)}x with the SDK v2 client (its own work included)`,
        );
        const viaSet = results["switchboard (toolset)"]?.[sessions];
        // ARCHITECTURE.md's budget for toolsets and connections: within 20% of a direct deployment's calls a second.
        const within = (r: number) => `>= 0.80x: ${r >= 0.8 ? "OK" : "OVER"}`;
        if (viaSet) {
          const r = viaSet.callsPerSec / sb.callsPerSec;
          const cpu =
            viaSet.cpuPerCall === undefined
              ? ""
              : `; the platform's CPU ${viaSet.cpuPerCall.toFixed(0)} µs a call (the deployment's ${sb.cpuPerCall?.toFixed(0) ?? "?"} µs)`;
          console.log(
            `  ${sessions} session(s), toolset: ${r.toFixed(2)}x a deployment's calls/s (${within(r)}); +${(viaSet.p50 - sb.p50).toFixed(2)} ms at p50 over the deployment itself${cpu}`,
          );
        }
        const remote = results["remote direct"]![sessions]!;
        const viaConn = results["switchboard (connection)"]![sessions]!;
        const connRatio = viaConn.callsPerSec / sb.callsPerSec;
        console.log(
          `  ${sessions} session(s), connection: ${connRatio.toFixed(2)}x a deployment's calls/s (${within(connRatio)}); +${(viaConn.p50 - remote.p50).toFixed(2)} ms at p50 over calling the remote server directly; ${(viaConn.callsPerSec / remote.callsPerSec).toFixed(2)}x its calls/s`,
        );
        console.log(
          `  ${sessions} session(s), OAuth token: ${diff >= 0 ? "+" : ""}${diff.toFixed(1)}% calls/s against the API key (same within noise, here 10%: ${diff >= -10 ? "OK" : "OVER"})`,
        );
      }
      server.closeAllConnections();
      await platform.close();
    });
  } finally {
    for (const stop of stops) await stop().catch(() => {});
    for (const c of children) c.kill("SIGTERM");
    // A run that failed may leave a deployment's volume mounted: its error, not the cleanup's, is the one to see.
    await fs.rm(dataDir, { recursive: true, force: true }).catch((e: unknown) => console.error(`cleanup: ${(e as Error).message}`));
  }
}

runBench(main);
