import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { Child, type ExitInfo } from "./child.js";
import { OVER_BUDGET_NOTE } from "./stdout-lines.js";
import { floodNotice } from "./flow.js";
import { nestsDeeper } from "./lines.js";
import { InputFull, type FlowLimits } from "../runner.js";
import type { LaunchSpec, Launched, Sandbox } from "../sandbox/index.js";

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
    // Parsing it would take seconds; the scan (with flattening the string) stops in a fraction of that, even on a busy machine.
    expect(performance.now() - started).toBeLessThan(500);
    const wide = JSON.stringify({ items: Array.from({ length: 200_000 }, (_, i) => ({ i, s: "[{" })) });
    expect(nestsDeeper(wide, 2000)).toBe(false);
  });
});

describe("unfinished output lines of every server share one memory budget", () => {
  // Real processes behind a stand-in sandbox: each writes 15 M characters without a newline and
  // then sleeps, as a server that pins platform memory would. Eight fit in the 128 M budget.
  const launch = (chars: number) => {
    const proc = spawn(process.execPath, ["-e", `process.stdout.write("x".repeat(${chars}), () => setTimeout(() => {}, 60_000))`], {
      stdio: ["pipe", "pipe", "pipe"],
    });
    const exited = new Promise<ExitInfo>((resolve) => proc.once("exit", (code, signal) => resolve({ code, signal })));
    const launched = {
      proc,
      pid: proc.pid!,
      exited,
      onNotice: () => {},
      rssBytes: () => 0,
      signal: (sig: NodeJS.Signals) => proc.kill(sig),
      kill: () => proc.kill("SIGKILL"),
    } as unknown as Launched;
    const sandbox = { launch: async () => launched } as unknown as Sandbox;
    return Child.launch(sandbox, {
      argv: [],
      env: {},
      cwd: "/",
      writable: [],
      readOnly: [],
      network: false,
      identity: null,
      limits: {} as LaunchSpec["limits"],
      label: "t",
      secrets: [],
    });
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

describe("what a server's pipes may cost the platform", () => {
  // Real processes behind a stand-in sandbox, as above.
  const launch = (script: string, flow: FlowLimits) => {
    const proc = spawn(process.execPath, ["-e", script], { stdio: ["pipe", "pipe", "pipe"] });
    const exited = new Promise<ExitInfo>((resolve) => proc.once("exit", (code, signal) => resolve({ code, signal })));
    const launched = {
      proc,
      pid: proc.pid!,
      exited,
      onNotice: () => {},
      rssBytes: () => 0,
      signal: (sig: NodeJS.Signals) => proc.kill(sig),
      kill: () => proc.kill("SIGKILL"),
    } as unknown as Launched;
    const sandbox = { launch: async () => launched } as unknown as Sandbox;
    return Child.launch(sandbox, {
      argv: [],
      env: {},
      cwd: "/",
      writable: [],
      readOnly: [],
      network: false,
      identity: null,
      limits: {} as LaunchSpec["limits"],
      label: "t",
      secrets: [],
      flow,
    });
  };
  const flow: FlowLimits = { stdinBytes: 256 * 1024, messagesPerSecond: 1000, bytesPerSecond: 1024 * 1024, floodStopMs: 1500 };

  it("holds at most its stdin budget for a server that stops reading, then refuses with a clear error", async () => {
    const child = await launch("process.stdin.pause(); setTimeout(() => {}, 60_000)", flow);
    try {
      const big = {
        jsonrpc: "2.0" as const,
        id: 1,
        method: "tools/call",
        params: { name: "x", arguments: { pad: "p".repeat(100 * 1024) } },
      };
      let refused: unknown;
      let sent = 0;
      for (let i = 0; i < 50 && !refused; i++) {
        try {
          child.send(big);
          sent++;
        } catch (e) {
          refused = e;
        }
      }
      expect(refused).toBeInstanceOf(InputFull);
      expect((refused as Error).message).toMatch(/^The MCP server is not reading its input/);
      // The kernel's pipe takes some; beyond it the platform holds no more than the budget.
      expect(child.outputStats().inputHeldBytes).toBeLessThanOrEqual(flow.stdinBytes);
      expect(sent).toBeLessThan(50);
    } finally {
      await child.stop(100);
    }
  });

  it("reads a flood of output lines no faster than its budget, and reports a flood that does not stop", async () => {
    // 2 million log lines as fast as the pipe takes them.
    const child = await launch(
      "for (let i = 0; i < 2e6; i++) require('fs').writeSync(2, 'line ' + i + '\\n'); setTimeout(() => {}, 60_000)",
      flow,
    );
    try {
      const flooded = new Promise<string>((resolve) => child.onFlood(resolve));
      const started = performance.now();
      const notice = await flooded;
      const seconds = (performance.now() - started) / 1000;
      expect(notice).toBe(floodNotice(flow));
      expect(seconds).toBeGreaterThanOrEqual(1.4);
      const stats = child.outputStats();
      // At most the budget a second (plus the second's burst and what one read brings).
      expect(stats.lines).toBeLessThan(flow.messagesPerSecond * (seconds + 1) + 10_000);
      expect(stats.throttledMs).toBeGreaterThan(1000);
      expect(child.logs().at(-1)).toBe(floodNotice(flow));
    } finally {
      await child.stop(100);
    }
  });

  it("a burst within the budget is read at once and reports no flood", async () => {
    const child = await launch(
      "for (let i = 0; i < 500; i++) require('fs').writeSync(2, 'line ' + i + '\\n'); setTimeout(() => {}, 60_000)",
      flow,
    );
    try {
      let flooded = false;
      child.onFlood(() => (flooded = true));
      await expect.poll(() => child.outputStats().lines, { timeout: 5000 }).toBe(500);
      expect(child.outputStats().throttledMs).toBe(0);
      expect(flooded).toBe(false);
    } finally {
      await child.stop(100);
    }
  });
});
