// Isolation layers compared on one stdio MCP server (tests/fixtures/mcp-fixture, no dependencies):
// a plain process, Switchboard's sandbox (bubblewrap with a user namespace, seccomp, cgroup, own
// volume and slirp4netns egress, through the very launch a deployment uses), and gVisor
// (`runsc do`, ptrace platform, no network) where runsc is installed. For each: time from start to
// the answer to `initialize` (median of RUNS), sequential tools/call echo throughput over
// DURATION_MS, and the resident memory of the whole process tree. Used for docs/decisions/008.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../src/server/config.js";
import { SANDBOX_PATH } from "../src/server/features/runtime/sandbox/bwrap.js";
import { createHosting } from "../src/server/features/runtime/sandbox/detect.js";
import { treeRssBytes, type Launched } from "../src/server/features/runtime/sandbox/index.js";
import { createLogger } from "../src/server/log.js";
import { projectRoot } from "../src/server/paths.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 3000);
const FIXTURE = path.join(projectRoot, "tests/fixtures/mcp-fixture");
const SERVER = path.join(FIXTURE, "server.js");

interface Started {
  proc: ChildProcess;
  rss(): number;
  stop(): void;
}

/** A newline JSON-RPC client over the process's stdio. */
function rpc(proc: ChildProcess) {
  let buf = "";
  const waiting = new Map<number, () => void>();
  proc.stdout!.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf("\n")) !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      try {
        const m = JSON.parse(line) as { id?: number };
        if (typeof m.id === "number") waiting.get(m.id)?.();
      } catch {
        // a log line
      }
    }
  });
  let id = 0;
  return (method: string, params: unknown) =>
    new Promise<void>((resolve) => {
      const n = ++id;
      waiting.set(n, () => {
        waiting.delete(n);
        resolve();
      });
      proc.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id: n, method, params }) + "\n");
    });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(name: string, start: () => Promise<Started>) {
  const startups: number[] = [];
  let callsPerSecond = 0;
  let rssMb = 0;
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const s = await start();
    const call = rpc(s.proc);
    await call("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } });
    startups.push(performance.now() - t0);
    if (i === RUNS - 1) {
      const end = performance.now() + DURATION_MS;
      let n = 0;
      for (; performance.now() < end; n++) await call("tools/call", { name: "echo", arguments: { message: "hello" } });
      callsPerSecond = n / (DURATION_MS / 1000);
      rssMb = s.rss() / 1024 / 1024;
    }
    s.stop();
    await new Promise((r) => (s.proc.exitCode === null && s.proc.signalCode === null ? s.proc.once("exit", r) : r(null)));
  }
  console.log(
    `${name.padEnd(44)} start ${median(startups).toFixed(0).padStart(5)} ms   echo ${callsPerSecond.toFixed(0).padStart(6)} calls/s   memory ${rssMb.toFixed(0).padStart(4)} MB`,
  );
}

async function main() {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-bench-sandbox-"));
  try {
    const config = loadConfig({ NODE_ENV: "production", DATA_DIR: dir, LOG_LEVEL: "silent" });
    const hosting = await createHosting(
      config,
      { data: dir, deployments: path.join(dir, "deployments"), packages: path.join(dir, "packages") },
      createLogger({ level: "silent", pretty: false }),
    );
    console.log(
      `machine: ${os.cpus().length} cores, ${os.release()}; ${RUNS} starts each, echo for ${DURATION_MS / 1000} s; Switchboard sandbox: ${hosting.sandbox.info.layer}`,
    );

    await measure("plain process (no isolation)", async () => {
      const proc = spawn(process.execPath, [SERVER], { stdio: ["pipe", "pipe", "ignore"] });
      return { proc, rss: () => treeRssBytes(proc.pid!), stop: () => proc.kill("SIGKILL") };
    });

    if (hosting.sandbox.info.kind === "bwrap") {
      const identity = await hosting.uids.forDeployment("bench");
      const workDir = await hosting.volumes.ensure("bench", identity);
      await measure("Switchboard sandbox (bubblewrap, see above)", async () => {
        const l: Launched = await hosting.sandbox.launch({
          argv: [process.execPath, SERVER],
          env: { PATH: SANDBOX_PATH, HOME: workDir },
          cwd: workDir,
          writable: [workDir],
          readOnly: [FIXTURE],
          network: true,
          identity,
          limits: { memoryMb: config.DEPLOY_MEMORY_MB, maxProcesses: config.DEPLOY_MAX_PROCESSES, cpus: config.DEPLOY_CPUS },
          label: "bench",
        });
        return { proc: l.proc, rss: () => l.rssBytes(), stop: () => l.kill() };
      });
      await hosting.volumes.remove("bench");
    } else console.log("Switchboard sandbox: not available here (needs bubblewrap)");

    const runsc = ["/usr/bin/runsc", "/usr/local/bin/runsc"].find((p) => existsSync(p));
    if (runsc && process.getuid?.() === 0) {
      await measure("gVisor (runsc do, ptrace platform, no network)", async () => {
        const proc = spawn(
          runsc,
          ["--rootless=false", "--network=none", "--platform=ptrace", "--ignore-cgroups", "do", process.execPath, SERVER],
          { stdio: ["pipe", "pipe", "ignore"], env: { PATH: SANDBOX_PATH } },
        );
        return { proc, rss: () => treeRssBytes(proc.pid!), stop: () => proc.kill("SIGKILL") };
      });
    } else console.log("gVisor: runsc not installed (apt-get install runsc) or not root: not measured");
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
