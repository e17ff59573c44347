import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "../../src/server/paths.js";
import { createTestApp, signedInUser, type TestApp } from "../support/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await signedInUser(t, "carol@example.com");
});
afterAll(() => t.close());

function admin(...args: string[]) {
  return spawnSync(process.execPath, [path.join(projectRoot, "node_modules/tsx/dist/cli.mjs"), "src/server/cli/admin.ts", ...args], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH, DATABASE_URL: t.db.url },
    encoding: "utf8",
    timeout: 60_000,
  });
}

const isAdmin = async () => (await t.db.database.pool.query("select is_admin from profiles where email = 'carol@example.com'")).rows[0].is_admin;

describe("npm run admin", () => {
  it("grants and revokes admin rights on an existing account", async () => {
    const g = admin("grant", "Carol@Example.com");
    expect(g.status).toBe(0);
    expect(g.stdout).toContain("carol@example.com is now an admin.");
    expect(await isAdmin()).toBe(true);
    expect(admin("list").stdout).toContain("carol@example.com");
    const r = admin("revoke", "carol@example.com");
    expect(r.status).toBe(0);
    expect(await isAdmin()).toBe(false);
  });

  it("says so when the account does not exist, and shows usage on bad input", () => {
    const r = admin("grant", "nobody@example.com");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("No account with the e-mail address nobody@example.com");
    const u = admin("promote");
    expect(u.status).toBe(2);
    expect(u.stderr).toContain("Usage:");
  });
});
