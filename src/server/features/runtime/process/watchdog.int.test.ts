// The runner's dead-man's switch with real processes: hosted servers' process groups die when
// the runner's ticks stop (paused, hung, cut off from the database) or its pipe closes (the
// runner died), and live on while it ticks.
import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger } from "../../../log.js";
import { Watchdog } from "./watchdog.js";
import { until as poll } from "~support/wait.js";

const log = createLogger({ level: "silent", pretty: false });
const groups: ChildProcess[] = [];
const dogs: Watchdog[] = [];

/** A stand-in for a hosted server: its own process group, like a sandboxed child. */
function server(): ChildProcess {
  const p = spawn("sleep", ["60"], { detached: true, stdio: "ignore" });
  groups.push(p);
  return p;
}

const alive = (p: ChildProcess) => {
  try {
    process.kill(p.pid!, 0);
    return p.exitCode === null && p.signalCode === null;
  } catch {
    return false;
  }
};

const until = (cond: () => boolean, ms: number): Promise<boolean> =>
  poll(
    async () => cond(),
    (v) => v,
    ms,
    25,
  );

afterEach(() => {
  for (const d of dogs.splice(0)) d.close();
  for (const p of groups.splice(0)) if (alive(p)) process.kill(-p.pid!, "SIGKILL");
});

describe("the runner's watchdog", () => {
  it("leaves the servers alone while the runner ticks, and kills every group once the ticks stop", async () => {
    const dog = new Watchdog(1500, log);
    dogs.push(dog);
    dog.arm();
    const a = server();
    const b = server();
    dog.add(a.pid!);
    dog.add(b.pid!);
    for (let i = 0; i < 20; i++) {
      dog.tick();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(alive(a) && alive(b)).toBe(true);
    // The runner stops ticking (as if paused with SIGSTOP): both groups die within the timeout.
    const stopped = Date.now();
    expect(await until(() => !alive(a) && !alive(b), 5000)).toBe(true);
    expect(Date.now() - stopped).toBeGreaterThan(1000);
    expect(dog.armed).toBe(false);
  });

  it("counts its deadline from the last tick only: groups coming and going do not put it off", async () => {
    const dog = new Watchdog(1000, log);
    dogs.push(dog);
    dog.arm();
    const a = server();
    dog.add(a.pid!);
    dog.tick();
    const ticked = Date.now();
    // Busy with other lines (crashes, restarts) but no heartbeat: it still fires on time.
    const churn = setInterval(() => {
      const s = server();
      dog.add(s.pid!);
      dog.remove(s.pid!);
    }, 150);
    try {
      expect(await until(() => !alive(a), 4000)).toBe(true);
    } finally {
      clearInterval(churn);
    }
    expect(Date.now() - ticked).toBeLessThan(2500);
  });

  it("kills the servers at once when the runner's end of the pipe closes (the runner died)", async () => {
    const dog = new Watchdog(60_000, log);
    dogs.push(dog);
    dog.arm();
    const a = server();
    dog.add(a.pid!);
    const started = Date.now();
    (dog as unknown as { proc: ChildProcess }).proc.stdin!.destroy();
    expect(await until(() => !alive(a), 2000)).toBe(true);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("forgets a group it was told ended, and a clean close kills nothing", async () => {
    const dog = new Watchdog(600, log);
    dogs.push(dog);
    dog.arm();
    const kept = server();
    dog.add(kept.pid!);
    dog.remove(kept.pid!);
    await new Promise((r) => setTimeout(r, 1200));
    expect(alive(kept)).toBe(true);
    const other = server();
    const dog2 = new Watchdog(600, log);
    dogs.push(dog2);
    dog2.arm();
    dog2.add(other.pid!);
    dog2.close();
    await new Promise((r) => setTimeout(r, 1200));
    expect(alive(other)).toBe(true);
  });
});
