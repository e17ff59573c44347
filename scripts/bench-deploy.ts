// Hosting benchmark: time from POST /api/deploy to 'running' for a first install and for an
// already-installed npm package (budget < 3 s), and the memory each running deployment uses.
// Real npm registry, real child processes, the sandbox this machine has.
import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../src/server/config.js";
import { createLogger } from "../src/server/log.js";
import { createPlatform } from "../src/server/platform.js";
import { benchUserKey, runBench, waitUntilRunning, withBenchDatabase } from "./bench-database.js";

const PACKAGE = process.env.BENCH_PACKAGE ?? "@modelcontextprotocol/server-everything";
const CACHED_RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 3);

async function main() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-bench-deploy-"));
  try {
    await withBenchDatabase("sb_bench_deploy", {}, async (database, dbUrl) => {
      const config = loadConfig({ NODE_ENV: "production", PORT: "3998", DATABASE_URL: dbUrl, DATA_DIR: dataDir, LOG_LEVEL: "silent" });
      const log = createLogger({ level: "silent", pretty: false });
      const platform = await createPlatform({ config, log, database });
      const runtime = platform.runtime!;
      const server = http.createServer();
      await platform.listen(server, 0, "127.0.0.1");
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      await database.pool.query(
        `insert into mcp_servers (id, name, description, category, type, source, tags, npx_command, is_approved) values ('bench', 'Bench', 'bench', 'Featured', 'Reference', 'official', '{}', $1, true)`,
        [`npx -y ${PACKAGE}`],
      );
      // Each deploy by a fresh Free user (3 deploys a month each).
      const newKey = () => benchUserKey(database);
      const call = (key: string, method: string, p: string, body?: unknown) =>
        fetch(`${base}${p}`, { method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      const deployToRunning = async (key: string) => {
        const t0 = performance.now();
        const r = await call(key, "POST", "/api/deploy/bench", { env: {} });
        if (r.status !== 202) throw new Error(`deploy: ${r.status} ${await r.text()}`);
        const id = ((await r.json()) as { deploymentInfo: { id: string } }).deploymentInfo.id;
        await waitUntilRunning(database, id);
        return { id, ms: performance.now() - t0 };
      };

      console.log(`sandbox: ${runtime.runner.sandbox.layer}; package ${PACKAGE}`);
      const firstKey = await newKey();
      const first = await deployToRunning(firstKey);
      console.log(`first install (npm registry -> running)     ${first.ms.toFixed(0)} ms`);
      await call(firstKey, "DELETE", `/api/deployments/${first.id}`);

      const cached: number[] = [];
      for (let i = 0; i < CACHED_RUNS; i++) {
        const key = await newKey();
        const d = await deployToRunning(key);
        cached.push(d.ms);
        await call(key, "DELETE", `/api/deployments/${d.id}`);
      }
      cached.sort((a, b) => a - b);
      const median = cached[Math.floor(cached.length / 2)]!;
      console.log(`cached package (POST -> running), ${CACHED_RUNS} runs  median ${median.toFixed(0)} ms, max ${cached.at(-1)!.toFixed(0)} ms   budget < 3000 ms: ${cached.at(-1)! < 3000 ? "OK" : "OVER"}`);

      const keys = await Promise.all(Array.from({ length: PARALLEL }, newKey));
      const running = await Promise.all(keys.map(deployToRunning));
      await new Promise((r) => setTimeout(r, 3000));
      const rss = running.map((d) => runtime.runner.rssBytes(d.id) / 1024 / 1024);
      console.log(`memory per running deployment (${PARALLEL} running, process tree RSS)  mean ${(rss.reduce((a, b) => a + b, 0) / rss.length).toFixed(0)} MB, max ${Math.max(...rss).toFixed(0)} MB`);
      await Promise.all(running.map((d, i) => call(keys[i]!, "DELETE", `/api/deployments/${d.id}`)));
      server.closeAllConnections();
      await platform.close();
    });
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

runBench(main);
