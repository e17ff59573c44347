import { statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestApp } from "~support/app.js";
import { waitForStatus } from "~support/deployments.js";
import { ROOT, eventually, logs, startHostileApp, type HostileApp } from "~support/hostile-server.js";
import { diskLimitNotice, memoryLimitReason, processLimitNotice } from "./index.js";

// The hostile tenant (see hostile-server.int.test.ts) tries to take more than its limits: processes,
// memory, disk and CPU.

let t: TestApp;
let deployHostile: HostileApp["deployHostile"];
let app: HostileApp | undefined;

beforeAll(async () => {
  if (!ROOT) return;
  app = await startHostileApp();
  ({ t, deployHostile } = app);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe.skipIf(!ROOT)("a hostile hosted server (needs a root platform: own uids, cgroups and volumes)", () => {
  describe("resources", () => {
    it("holds at most DEPLOY_MAX_PROCESSES processes and says so in its output", async () => {
      const h = await deployHostile(t);
      const r = await h.call<{ started: number; failed: number; firstError: string }>("fork_many", { n: 100 });
      expect(r.started).toBeLessThan(64);
      expect(r.failed).toBeGreaterThan(0);
      expect(r.firstError).toBe("EAGAIN");
      expect(
        await eventually(
          () => logs(h),
          (l) => l.includes(processLimitNotice(64)),
        ),
      ).toContain(processLimitNotice(64));
      await h.call("release");
    }, 120_000);

    it("is stopped at the memory limit even when the memory is held by a process a worker thread started", async () => {
      const h = await deployHostile(t);
      await h.call("alloc_in_worker", { mb: 600 });
      const stopped = await waitForStatus(h.c, h.d.server_id, ["crashed", "crash_looping"], 30_000);
      expect(stopped.status_detail).toMatch(new RegExp(`^${memoryLimitReason(160)}`));
      // The platform is unharmed and answers.
      expect((await h.c.get("/api/deployments")).status).toBe(200);
    }, 120_000);

    it("cannot hold memory in its private /tmp beyond the limit", async () => {
      const h = await deployHostile(t);
      const filled = h.call<{ writtenMb: number; error: string | null }>("fill", { dir: "/tmp", mb: 600 }).catch(() => null);
      const stopped = await waitForStatus(h.c, h.d.server_id, ["crashed", "crash_looping"], 60_000);
      expect(stopped.status_detail).toMatch(new RegExp(`^${memoryLimitReason(160)}`));
      const r = await filled;
      if (r) expect(r.writtenMb).toBeLessThanOrEqual(160);
    }, 120_000);

    it("cannot write more than DEPLOY_DISK_MB into its directory, and the owner is told", async () => {
      const h = await deployHostile(t);
      const r = await h.call<{ writtenMb: number; error: string }>("fill", { dir: ".", mb: 200 });
      expect(r.error).toBe("ENOSPC");
      expect(r.writtenMb).toBeLessThan(64);
      expect(
        await eventually(
          () => logs(h),
          (l) => l.includes(diskLimitNotice(64)),
        ),
      ).toContain(diskLimitNotice(64));
      // On the host the volume's image holds no more than the limit.
      const img = statSync(path.join(t.config.DATA_DIR, "deployments", ".volumes", `${h.d.id}.img`));
      expect(img.blocks * 512).toBeLessThanOrEqual(64 * 1024 * 1024);
    }, 120_000);

    it("gets at most DEPLOY_CPUS cores however many threads it runs", async () => {
      const h = await deployHostile(t);
      const r = await h.call<{ wallMs: number; cpuMs: number }>("cpu_burn", { ms: 2000, threads: 2 });
      // 0.5 core over about 2 s is about 1 s of CPU; unlimited, two threads would take up to 4 s.
      expect(r.cpuMs).toBeLessThan(0.5 * r.wallMs + 400);
    }, 120_000);
  });
});
