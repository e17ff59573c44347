// Sleeping deployments benchmark (docs/hosting.md#sleeping). Real processes, the sandbox this
// machine has, the npm package installed once (a wake installs nothing):
// - wake latency: a request to a sleeping deployment's URL until its answer (initialize), over
//   BENCH_WAKES wakes, p50 and p95 (budget < 1 s and < 2 s);
// - density: BENCH_DEPLOYMENTS deployments held by one runner, each called in one short burst at a
//   random moment of BENCH_WINDOW_S seconds (most MCP servers idle for hours between bursts); the
//   runner's measured memory (process-tree RSS of its deployments) is sampled all along. Without
//   sleeping every one of them runs all the time; with it, only those in or just after a burst.
//   Density = deployments held / most awake at once (goal >= 10x), and the memory both ways.
import fs from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../src/server/config.js";
import { createLogger } from "../src/server/log.js";
import { createPlatform } from "../src/server/platform.js";
import { freePort } from "~support/ports.js";
import { benchUserKey, runBench, waitUntilRunning, withBenchDatabase } from "./bench-database.js";

const PACKAGE = process.env.BENCH_PACKAGE ?? "@modelcontextprotocol/server-everything";
const DEPLOYMENTS = Number(process.env.BENCH_DEPLOYMENTS ?? 50);
const WAKES = Number(process.env.BENCH_WAKES ?? 30);
const WINDOW_S = Number(process.env.BENCH_WINDOW_S ?? 180);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 2000);
const MiB = 1024 * 1024;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-bench-sleep-"));
  const port = await freePort();
  try {
    await withBenchDatabase("sb_bench_sleep", {}, async (database, dbUrl) => {
      const config = loadConfig({
        NODE_ENV: "production",
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        GATEWAY_RATE_FREE: "100000000",
        DATABASE_URL: dbUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: "silent",
        DEPLOY_IDLE_MS: String(IDLE_MS),
      });
      const platform = await createPlatform({ config, log: createLogger({ level: "silent", pretty: false }), database });
      const runner = platform.runtime!.runner;
      const server = http.createServer();
      await platform.listen(server, port, "127.0.0.1");
      const base = `http://127.0.0.1:${port}`;
      await database.pool.query(
        `insert into mcp_servers (id, name, description, category, type, source, tags, npx_command, is_approved) values ('bench', 'bench', 'bench', 'Featured', 'Reference', 'official', '{}', $1, true)`,
        [`npx -y ${PACKAGE}`],
      );
      const initialize = (url: string, key: string) =>
        fetch(url, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
          }),
        }).then(async (r) => {
          await r.text();
          if (r.status !== 200) throw new Error(`initialize: ${r.status}`);
        });
      const statusOf = async (id: string) =>
        (await database.pool.query<{ status: string }>("select status from deployments where id = $1", [id])).rows[0]?.status;
      const untilAsleep = async (ids: string[]) => {
        for (const id of ids) while ((await statusOf(id)) !== "sleeping" || runner.runs(id)) await sleep(100);
      };

      console.log(`sandbox: ${runner.sandbox.layer}`);
      console.log(`package: ${PACKAGE} (installed by the first deploy, then cached)`);
      // One Free user each (1 awake at a time, so each deployment is its owner's only one).
      const deps: { id: string; url: string; key: string }[] = [];
      for (let i = 0; i < DEPLOYMENTS; i += 4) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(4, DEPLOYMENTS - i) }, async () => {
            const key = await benchUserKey(database);
            const r = await fetch(`${base}/api/deploy/bench`, {
              method: "POST",
              headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
              body: JSON.stringify({ env: {} }),
            });
            if (r.status !== 202) throw new Error(`deploy: ${r.status} ${await r.text()}`);
            const { id, url } = ((await r.json()) as { deploymentInfo: { id: string; url: string } }).deploymentInfo;
            await waitUntilRunning(database, id);
            return { id, url, key };
          }),
        );
        deps.push(...batch);
      }
      await sleep(1000);
      const awakeRss = deps.map((d) => runner.rssBytes(d.id) / MiB).filter((x) => x > 0);
      const perAwake = awakeRss.reduce((a, b) => a + b, 0) / Math.max(1, awakeRss.length);
      console.log(
        `\n${DEPLOYMENTS} deployments, all awake: ${awakeRss.reduce((a, b) => a + b, 0).toFixed(0)} MB of process memory (mean ${perAwake.toFixed(0)} MB each)`,
      );
      await untilAsleep(deps.map((d) => d.id));
      const asleepRss = deps.reduce((a, d) => a + runner.rssBytes(d.id), 0) / MiB;
      console.log(
        `all asleep after ${IDLE_MS} ms idle: ${asleepRss.toFixed(0)} MB, ${deps.filter((d) => runner.runs(d.id)).length} processes`,
      );

      // Wake latency: one wake at a time, from sleep to the first answer.
      const wakes: number[] = [];
      for (let i = 0; i < WAKES; i++) {
        const d = deps[i % deps.length]!;
        await untilAsleep([d.id]);
        const t0 = performance.now();
        await initialize(d.url, d.key);
        wakes.push(performance.now() - t0);
      }
      const p50 = pct(wakes, 0.5);
      const p95 = pct(wakes, 0.95);
      console.log(
        `\nwake to first answer (initialize), ${WAKES} wakes: p50 ${p50.toFixed(0)} ms (budget < 1000: ${p50 < 1000 ? "OK" : "OVER"}), p95 ${p95.toFixed(0)} ms (budget < 2000: ${p95 < 2000 ? "OK" : "OVER"}), max ${Math.max(...wakes).toFixed(0)} ms`,
      );
      await untilAsleep(deps.map((d) => d.id));

      // Density: one burst (initialize, then 3 requests a second apart) per deployment at a random moment of the window.
      const burst = async (d: (typeof deps)[number]) => {
        await sleep(Math.random() * WINDOW_S * 1000);
        for (let k = 0; k < 3; k++) {
          await initialize(d.url, d.key);
          await sleep(1000);
        }
      };
      let peakAwake = 0;
      let peakRss = 0;
      const samples: number[] = [];
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          const awake = deps.filter((d) => runner.runs(d.id)).length;
          const rss = deps.reduce((a, d) => a + runner.rssBytes(d.id), 0) / MiB;
          peakAwake = Math.max(peakAwake, awake);
          peakRss = Math.max(peakRss, rss);
          samples.push(awake);
          await sleep(100);
        }
      })();
      await Promise.all(deps.map(burst));
      await untilAsleep(deps.map((d) => d.id));
      sampling = false;
      await sampler;
      const meanAwake = samples.reduce((a, b) => a + b, 0) / samples.length;
      const capacityMb = config.RUNNER_CAPACITY_MB ?? Math.floor((os.totalmem() / MiB) * 0.8);
      const keepAwake = Math.floor(capacityMb / perAwake);
      const density = DEPLOYMENTS / Math.max(1, peakAwake);
      console.log(
        `\ndensity: ${DEPLOYMENTS} deployments, one burst each in ${WINDOW_S} s (idle ${IDLE_MS} ms before sleep): at most ${peakAwake} awake at once (mean ${meanAwake.toFixed(1)})`,
      );
      console.log(
        `  memory: ${peakRss.toFixed(0)} MB at the peak with sleeping, against ${(DEPLOYMENTS * perAwake).toFixed(0)} MB to keep all ${DEPLOYMENTS} awake`,
      );
      console.log(
        `  held per awake slot: ${density.toFixed(1)}x (goal >= 10x: ${density >= 10 ? "OK" : "UNDER"}); this runner (${capacityMb} MB) keeps ${keepAwake} awake at ${perAwake.toFixed(0)} MB each, so holds about ${Math.floor(keepAwake * density)} with this traffic`,
      );
      server.closeAllConnections();
      await platform.close();
    });
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

runBench(main);
