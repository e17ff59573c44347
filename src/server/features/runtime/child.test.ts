import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { Child, nestsDeeper, OVER_BUDGET_NOTE, type ExitInfo } from "./child.js";
import type { LaunchSpec, Launched, Sandbox } from "./sandbox/index.js";

describe("nestsDeeper: how deep a server's JSON nests, before it is parsed", () => {
  it("counts objects and arrays, not brackets inside strings or escaped quotes", () => {
    expect(nestsDeeper('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(nestsDeeper('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(nestsDeeper(`{"s":"${"[".repeat(5000)}"}`, 10)).toBe(false);
    expect(nestsDeeper(`{"s":"\\"${"{".repeat(50)}"}`, 10)).toBe(false);
    expect(nestsDeeper(`{"s":"\\\\"${",[".repeat(50)}`, 10)).toBe(true);
  });

  it("stops at the limit: millions of brackets are refused in a moment", () => {
    const deep = "[".repeat(8_000_000) + "]".repeat(8_000_000);
    const started = performance.now();
    expect(nestsDeeper(deep, 2000)).toBe(true);
    expect(performance.now() - started).toBeLessThan(50);
    const wide = JSON.stringify({ items: Array.from({ length: 200_000 }, (_, i) => ({ i, s: "[{" })) });
    expect(nestsDeeper(wide, 2000)).toBe(false);
  });
});

describe("unfinished output lines of every server share one memory budget", () => {
  // Real processes behind a stand-in sandbox: each writes 15 M characters without a newline and
  // then sleeps, as a server that pins platform memory would. Eight fit in the 128 M budget.
  const launch = (chars: number) => {
    const proc = spawn(process.execPath, ["-e", `process.stdout.write("x".repeat(${chars}), () => setTimeout(() => {}, 60_000))`], { stdio: ["pipe", "pipe", "pipe"] });
    const exited = new Promise<ExitInfo>((resolve) => proc.once("exit", (code, signal) => resolve({ code, signal })));
    const launched = { proc, pid: proc.pid!, exited, onNotice: () => {}, rssBytes: () => 0, signal: (sig: NodeJS.Signals) => proc.kill(sig), kill: () => proc.kill("SIGKILL") } as unknown as Launched;
    const sandbox = { launch: async () => launched } as unknown as Sandbox;
    return Child.launch(sandbox, { argv: [], env: {}, cwd: "/", writable: [], readOnly: [], network: false, identity: null, limits: {} as LaunchSpec["limits"], label: "t", secrets: [] });
  };

  it("drops the line that goes beyond it, says so at once, and gives the memory back when a server ends", async () => {
    const children: Child[] = [];
    try {
      for (let i = 0; i < 8; i++) children.push(await launch(15_000_000));
      await new Promise((r) => setTimeout(r, 3000));
      expect(children.flatMap((c) => c.logs())).toEqual([]);
      const ninth = await launch(15_000_000);
      children.push(ninth);
      await expect.poll(() => ninth.logs(), { timeout: 10_000 }).toContain(OVER_BUDGET_NOTE);
      // Once the others are gone, their share is free again: a new server's line is held.
      await Promise.all(children.slice(0, 8).map((c) => c.stop(100)));
      const tenth = await launch(15_000_000);
      children.push(tenth);
      await new Promise((r) => setTimeout(r, 2000));
      expect(tenth.logs()).toEqual([]);
    } finally {
      await Promise.all(children.map((c) => c.stop(100)));
    }
  }, 60_000);
});
