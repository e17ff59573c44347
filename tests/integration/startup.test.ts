import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { projectRoot } from "~/server/paths.js";
import { startAppProcess } from "../support/process.js";

// The real start-up path: `node dist/server.js` with the embedded PostgreSQL in a scratch DATA_DIR.
const dataDir = path.join(os.tmpdir(), `switchboard-startup-${process.pid}`);
afterAll(() => fs.rm(dataDir, { recursive: true, force: true }));

function postgresRunningOn(dir: string): boolean {
  const pidFile = path.join(dir, "pg", "postmaster.pid");
  try {
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("start-up on the embedded PostgreSQL", () => {
  it("starts with no database configured, keeps data across a restart, and stops PostgreSQL on Ctrl-C", async () => {
    const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: "55432", DATABASE_URL: "" };
    const first = await startAppProcess(env, 90_000);
    const res = await fetch(`${first.url}/api/waitlist`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "kept@example.com" }),
    });
    expect(res.status).toBe(201);
    expect(postgresRunningOn(dataDir)).toBe(true);
    expect(await first.stop("SIGINT"), first.output()).toBe(0);
    expect(postgresRunningOn(dataDir)).toBe(false);

    const t0 = Date.now();
    const second = await startAppProcess(env);
    const readyMs = Date.now() - t0;
    expect(readyMs).toBeLessThan(5_000);
    const again = await fetch(`${second.url}/api/waitlist`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "KEPT@example.com" }),
    });
    expect(again.status).toBe(200); // the first run's row survived the restart
    expect(await second.stop("SIGTERM"), second.output()).toBe(0);
    expect(postgresRunningOn(dataDir)).toBe(false);
  });

  it("adopts a PostgreSQL left running by a killed (-9) app instead of failing", async () => {
    const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: "55432", DATABASE_URL: "" };
    const first = await startAppProcess(env);
    await first.stop("SIGKILL");
    expect(postgresRunningOn(dataDir)).toBe(true);
    const second = await startAppProcess(env);
    expect((await fetch(`${second.url}/readyz`)).status).toBe(200);
    expect(await second.stop("SIGINT"), second.output()).toBe(0);
    expect(postgresRunningOn(dataDir)).toBe(false);
  });

  it("refuses a bad setting with a message naming it", () => {
    const r = spawnSync(process.execPath, [path.join(projectRoot, "dist/server.js")], {
      env: { PATH: process.env.PATH, PORT: "abc", PUBLIC_URL: "ftp://x" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("Invalid configuration");
    expect(r.stderr).toContain("PORT");
    expect(r.stderr).toContain("PUBLIC_URL");
  });
});
