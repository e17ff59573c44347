// Hosting benchmark: time from POST /api/deploy to 'running' for a first install and for an
// already-installed package (budget < 3 s), and the memory each running deployment uses, for the
// npm path (the real npm registry) and the Python path (a PyPI package from the test index of
// tests/support/python-index.ts: a wheel, and an sdist built in the install sandbox) and the
// container image path (the fixture server's Node.js image, from a real registry on a test host:
// tests/support/image-registry.ts). Real child processes, the sandbox this machine has.
// BENCH_PATHS=npm,python,image chooses.
import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { loadConfig } from "../src/server/config.js";
import { createLogger } from "../src/server/log.js";
import { createPlatform } from "../src/server/platform.js";
import { imageBuilder, imageToolsMissing, startImageRegistry, type ImageBuilder, type ImageRegistry } from "~support/image-registry.js";
import { PY_FIXTURE, pythonIndexUnavailable, startPythonIndex, type PythonIndex } from "~support/python-index.js";
import { freePort } from "~support/ports.js";
import { benchUserKey, runBench, waitUntilRunning, withBenchDatabase } from "./bench-database.js";

const PACKAGE = process.env.BENCH_PACKAGE ?? "@modelcontextprotocol/server-everything";
const CACHED_RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 3);
const PATHS = (process.env.BENCH_PATHS ?? "npm,python,image").split(",");
/** calls/s through the gateway: this many clients calling `echo` at once, for CALL_SECONDS */
const CALLERS = Number(process.env.BENCH_CALLERS ?? 8);
const CALL_SECONDS = Number(process.env.BENCH_CALL_SECONDS ?? 5);

/**
 * tools/call `echo` through the gateway with the MCP SDK's client, CALLERS clients at once (one
 * each: a client's fetches share its transport's abort signal, which undici lets hold 1,500
 * listeners): completed calls per second.
 */
async function callsPerSecond(url: string, key: string): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
      );
      await client.callTool({ name: "echo", arguments: { message: "warm" } });
      return client;
    }),
  );
  try {
    let calls = 0;
    const end = performance.now() + CALL_SECONDS * 1000;
    await Promise.all(
      clients.map(async (client) => {
        while (performance.now() < end) {
          await client.callTool({ name: "echo", arguments: { message: "bench" } });
          calls++;
        }
      }),
    );
    return calls / CALL_SECONDS;
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

async function main() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-bench-deploy-"));
  const noPython = PATHS.includes("python") ? await pythonIndexUnavailable() : "not asked for";
  const index: PythonIndex | null = noPython ? null : await startPythonIndex({ address: "198.51.100.19", port: 7789 });
  const noImages = PATHS.includes("image") ? await imageToolsMissing() : "not asked for";
  let registry: ImageRegistry | null = null;
  let images: ImageBuilder | null = null;
  try {
    if (!noImages) {
      registry = await startImageRegistry({ address: "203.0.113.79", port: 7799 });
      images = await imageBuilder();
      await images.build("1");
      await registry.push(images.layout, "1", "fixture/node");
    }
    // The gateway answers only requests naming PUBLIC_URL's host: a port chosen before the config.
    const port = await freePort();
    await withBenchDatabase("sb_bench_deploy", {}, async (database, dbUrl) => {
      // The test index is plain HTTP, which production settings refuse: the bench runs as 'test' for it.
      const config = loadConfig({
        NODE_ENV: index ? "test" : "production",
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        // Fair use on, above what the calls/s load sends (as bench:gateway has it).
        GATEWAY_RATE_FREE: "100000000",
        DATABASE_URL: dbUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        ...(index ? { PYPI_INDEX_URL: index.url } : {}),
        ...(registry ? { IMAGE_INSECURE_REGISTRIES: registry.host } : {}),
      });
      const log = createLogger({ level: "silent", pretty: false });
      const platform = await createPlatform({ config, log, database });
      const runtime = platform.runtime!;
      const server = http.createServer();
      await platform.listen(server, port, "127.0.0.1");
      const base = `http://127.0.0.1:${port}`;
      const entries: Array<[string, string]> = [
        ["bench", `npx -y ${PACKAGE}`],
        ["bench-py", `uvx ${PY_FIXTURE}==1.0.0`],
        ["bench-py-sdist", `uvx ${PY_FIXTURE}==2.0.0`],
        ["bench-image", `docker run -i ${registry?.host ?? "localhost"}/fixture/node:1`],
      ];
      for (const [id, command] of entries) {
        await database.pool.query(
          `insert into mcp_servers (id, name, description, category, type, source, tags, npx_command, is_approved) values ($1, $1, 'bench', 'Featured', 'Reference', 'official', '{}', $2, true)`,
          [id, command],
        );
      }
      // Each deploy by a fresh Free user (3 deploys a month each).
      const newKey = () => benchUserKey(database);
      const call = (key: string, method: string, p: string, body?: unknown) =>
        fetch(`${base}${p}`, {
          method,
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      const deployToRunning = async (key: string, entry: string) => {
        const t0 = performance.now();
        const r = await call(key, "POST", `/api/deploy/${entry}`, { env: {} });
        if (r.status !== 202) throw new Error(`deploy: ${r.status} ${await r.text()}`);
        const { id, url } = ((await r.json()) as { deploymentInfo: { id: string; url: string } }).deploymentInfo;
        await waitUntilRunning(database, id);
        return { id, url, ms: performance.now() - t0 };
      };
      const once = async (entry: string) => {
        const key = await newKey();
        const d = await deployToRunning(key, entry);
        await call(key, "DELETE", `/api/deployments/${d.id}`);
        return d.ms;
      };

      const measure = async (label: string, entry: string, firstLabel: string) => {
        console.log(`\n${label}`);
        console.log(`  ${firstLabel.padEnd(44)} ${(await once(entry)).toFixed(0)} ms`);
        const cached: number[] = [];
        for (let i = 0; i < CACHED_RUNS; i++) cached.push(await once(entry));
        cached.sort((a, b) => a - b);
        const median = cached[Math.floor(cached.length / 2)]!;
        console.log(
          `  cached package (POST -> running), ${CACHED_RUNS} runs  median ${median.toFixed(0)} ms, max ${cached.at(-1)!.toFixed(0)} ms   budget < 3000 ms: ${cached.at(-1)! < 3000 ? "OK" : "OVER"}`,
        );
        const keys = await Promise.all(Array.from({ length: PARALLEL }, newKey));
        const running = await Promise.all(keys.map((k) => deployToRunning(k, entry)));
        await new Promise((r) => setTimeout(r, 3000));
        const rss = running.map((d) => runtime.runner.rssBytes(d.id) / 1024 / 1024);
        console.log(
          `  memory per running deployment (${PARALLEL} running, process tree RSS)  mean ${(rss.reduce((a, b) => a + b, 0) / rss.length).toFixed(0)} MB, max ${Math.max(...rss).toFixed(0)} MB`,
        );
        const rate = await callsPerSecond(running[0]!.url, keys[0]!);
        console.log(`  calls/s through the gateway (tools/call echo, ${CALLERS} at once, ${CALL_SECONDS} s)  ${rate.toFixed(0)}`);
        await Promise.all(running.map((d, i) => call(keys[i]!, "DELETE", `/api/deployments/${d.id}`)));
      };

      console.log(`sandbox: ${runtime.runner.sandbox.layer}`);
      if (PATHS.includes("npm")) await measure(`npm: ${PACKAGE}`, "bench", "first install (npm registry -> running)");
      if (index) {
        await measure(`Python: ${PY_FIXTURE}==1.0.0 from the test index (a wheel)`, "bench-py", "first install (venv + pip -> running)");
        console.log(`  first install of an sdist-only release (built in the sandbox) ${(await once("bench-py-sdist")).toFixed(0)} ms`);
      } else console.log(`\nPython path skipped: ${noPython}`);
      if (registry)
        await measure(
          `Image: ${registry.host}/fixture/node:1 (node and the fixture server)`,
          "bench-image",
          "first pull (registry -> unpacked -> running)",
        );
      else console.log(`\nImage path skipped: ${noImages}`);
      server.closeAllConnections();
      await platform.close();
    });
  } finally {
    await index?.close();
    await registry?.close();
    await images?.close();
    // (A failure above may leave a volume mounted: its own error is the one to print.)
    await fs.rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

runBench(main);
