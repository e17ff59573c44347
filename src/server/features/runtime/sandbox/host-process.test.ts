import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { projectRoot } from "~/server/paths.js";
import { HOST_ENV, hostRun, hostSpawn } from "./host-process.js";

// Host processes get the platform's environment and nothing else (docs/hosting.md#host-processes).

const planted = ["LD_PRELOAD", "GCONV_PATH", "GLIBC_TUNABLES", "MALLOC_PERTURB_", "BASH_ENV", "npm_config_registry", "GIT_DIR"];

afterEach(() => {
  for (const name of planted) delete process.env[name];
});

describe("host processes", () => {
  it("see HOST_ENV alone, whatever the platform's own environment holds and whatever a caller adds", async () => {
    // Names the loader, libc, bash, npm and git honour, set in the platform's environment: none reaches a host program.
    for (const name of planted) process.env[name] = "/nonexistent/planted";
    const { stdout } = await hostRun("/usr/bin/env", []);
    expect(stdout.trim().split("\n")).toEqual([`PATH=${HOST_ENV.PATH}`]);
    // What the platform adds on purpose comes on top, and cannot move PATH.
    const extra = await hostRun("/usr/bin/env", [], { extraEnv: { PATH: "/tmp/evil", LC_ALL: "C" } });
    expect(extra.stdout.trim().split("\n").sort()).toEqual(["LC_ALL=C", `PATH=${HOST_ENV.PATH}`]);
    const spawned = hostSpawn("/usr/bin/env", [], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    spawned.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
    await new Promise((r) => spawned.once("close", r));
    expect(out.trim()).toBe(`PATH=${HOST_ENV.PATH}`);
  });

  it("start only through host-process.ts: no other module of the server imports child_process to run something", () => {
    const allowed = new Set(["src/server/features/runtime/sandbox/host-process.ts", "src/server/db/embedded.ts"]);
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name)) {
          const rel = path.relative(projectRoot, p);
          const text = fs.readFileSync(p, "utf8");
          // `import type` brings no function; any other import or require of child_process could start a process.
          const runs =
            /^import(?!\s+type\b)[^;]*from\s+["'](node:)?child_process["']/m.test(text) ||
            /require\(\s*["'](node:)?child_process["']\s*\)/.test(text) ||
            /import\(\s*["'](node:)?child_process["']\s*\)/.test(text);
          if (runs && !allowed.has(rel)) offenders.push(rel);
        }
      }
    };
    walk(path.join(projectRoot, "src"));
    expect(offenders).toEqual([]);
  });
});
