// A hostile tenant for the sandbox tests: tests/fixtures/hostile-server (Node.js built-ins only),
// deployed through the API like any repository, with tools that try every way out the threat model
// names (docs/hosting.md). The full sandbox (an own uid per deployment, cgroups, volumes) needs a
// root platform, as on CI.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { expect } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { createTestApp, signedInUser, type Client, type TestApp } from "./app.js";
import { registerOwnedServer, waitForStatus } from "./deployments.js";
import { createFixtureRepo, type FixtureRepo } from "./git-fixture.js";

export const ROOT = process.getuid?.() === 0;
/** The limits the hostile tests run under: 160 MB of memory, 64 processes, 64 MB of disk, half a core. */
const LIMITS = { DEPLOY_MEMORY_MB: "160", DEPLOY_MAX_PROCESSES: "64", DEPLOY_DISK_MB: "64", DEPLOY_CPUS: "0.5" };

export interface Hostile {
  c: Client;
  d: DeploymentView;
  call<T = Record<string, unknown>>(tool: string, args?: Record<string, unknown>): Promise<T>;
}

export interface HostileApp {
  /** The platform with LIMITS, git deploys from file URLs, and no restart within a test (10 min back-off). */
  t: TestApp;
  /** Signs up a new user, who deploys the hostile server from git on `app` and waits for it to run. */
  deployHostile(app: TestApp, env?: Record<string, string>): Promise<Hostile>;
  /** The pid the platform recorded for a deployment of `t`. */
  deploymentPid(id: string): Promise<number>;
  close(): Promise<void>;
}

export async function startHostileApp(): Promise<HostileApp> {
  const t = await createTestApp({ GIT_ALLOW_FILE: "on", DEPLOY_START_TIMEOUT_MS: "20000", RESTART_BACKOFF_MS: "600000", ...LIMITS });
  let repo: FixtureRepo;
  try {
    repo = await createFixtureRepo({ fixture: "hostile-server", executables: ["server.js"] });
  } catch (err) {
    await t.close();
    throw err;
  }
  let users = 0;
  return {
    t,
    async deployHostile(app, env = {}) {
      const name = `eve${++users}`;
      const c = await signedInUser(app, `${name}@example.com`);
      await registerOwnedServer(c, `${name}/hostile`, "Hostile");
      const r = await c.post(`/api/deploy/${name}/hostile`, { repositoryUrl: repo.url, env });
      expect(r.status, await r.clone().text()).toBe(202);
      const d = await waitForStatus(c, `${name}/hostile`, "running", 60_000);
      const call = async <T>(tool: string, args: Record<string, unknown> = {}) => {
        const res = (await app.runtime.runner.client(d.id)!.callTool({ name: tool, arguments: args }, undefined, { timeout: 60_000 })) as {
          content: { text: string }[];
        };
        return JSON.parse(res.content[0]!.text) as T;
      };
      return { c, d, call };
    },
    async deploymentPid(id) {
      return ((await t.db.database.pool.query("select pid from deployments where id = $1", [id])).rows[0] as { pid: number }).pid;
    },
    async close() {
      await t.close();
      await repo.cleanup();
    },
  };
}

/** A deployment's log lines, as its owner reads them. */
export const logs = async (h: Hostile) =>
  ((await (await h.c.get(`/api/deployments/${h.d.id}/logs`)).json()) as { lines: string[] }).lines.join("\n");

/** Polls until `ok` holds; at the timeout, the last value (tests/support/wait.ts). */
export { until as eventually } from "./wait.js";

/** The host's view of the processes running a deployment (below bwrap, through every thread's children). */
export function hostProcesses(pid: number): { pid: number; uid: number; cmdline: string }[] {
  const out: { pid: number; uid: number; cmdline: string }[] = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop()!;
    try {
      const status = readFileSync(`/proc/${p}/status`, "utf8");
      out.push({
        pid: p,
        uid: Number(/^Uid:\s+(\d+)/m.exec(status)![1]),
        cmdline: readFileSync(`/proc/${p}/cmdline`, "utf8").replace(/\0/g, " "),
      });
      for (const tid of readdirSync(`/proc/${p}/task`))
        stack.push(...readFileSync(`/proc/${p}/task/${tid}/children`, "utf8").trim().split(" ").filter(Boolean).map(Number));
    } catch {
      // gone
    }
  }
  return out;
}

export interface HostSideProcess {
  pid: number;
  comm: string;
  /** its environment as it started (NAME=value) */
  environ: string[];
  cmdline: string;
}

/**
 * The processes of the host that run as `uid` (a deployment's own: the sandbox's launcher, its
 * network and its relay), in the host's pid namespace: those of the sandbox itself have their own.
 */
export function hostSideOf(uid: number): HostSideProcess[] {
  const ours = readlinkSync("/proc/self/ns/pid");
  const out: HostSideProcess[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${d}/status`, "utf8"))?.[1]) !== uid) continue;
      if (readlinkSync(`/proc/${d}/ns/pid`) !== ours) continue;
      out.push({
        pid: Number(d),
        comm: readFileSync(`/proc/${d}/comm`, "utf8").trim(),
        environ: readFileSync(`/proc/${d}/environ`, "utf8").split("\0").filter(Boolean),
        cmdline: readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " "),
      });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Every process of the machine whose command line holds `text` (every uid may read them all). */
export function cmdlinesHolding(text: string): string[] {
  const out: string[] = [];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmdline = readFileSync(`/proc/${d}/cmdline`, "utf8");
      if (cmdline.includes(text)) out.push(`${d}: ${cmdline.replace(/\0/g, " ").slice(0, 200)}`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
