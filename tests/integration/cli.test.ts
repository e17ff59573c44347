import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectRoot } from "~/server/paths.js";
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

const isAdmin = async () =>
  (await t.db.database.pool.query("select is_admin from profiles where email = 'carol@example.com'")).rows[0].is_admin;

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

describe("npm run catalog:import", () => {
  function importCli(...args: string[]) {
    return spawnSync(
      process.execPath,
      [path.join(projectRoot, "node_modules/tsx/dist/cli.mjs"), "src/server/cli/catalog-import.ts", ...args],
      {
        cwd: projectRoot,
        env: { PATH: process.env.PATH, DATABASE_URL: t.db.url },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
  }

  it("imports a server.json file, reports invalid entries by name, and changes nothing the second time", async () => {
    const file = path.join(os.tmpdir(), `import-${process.pid}.json`);
    await fs.writeFile(
      file,
      JSON.stringify([
        {
          name: "io.github.octo/tides",
          description: "Tide tables",
          version: "1.2.3",
          packages: [{ registryType: "npm", identifier: "tides-mcp", version: "1.2.3", transport: { type: "stdio" } }],
        },
        { name: "broken name", description: "x", version: "1" },
      ]),
    );
    const first = importCli(file);
    expect(first.status).toBe(0);
    expect(first.stdout).toContain("1 created, 0 updated, 0 unchanged, 1 invalid");
    expect(first.stdout).toContain("skipped broken name");
    const second = importCli(file);
    expect(second.stdout).toContain("0 created, 0 updated, 1 unchanged, 1 invalid");
    const row = await t.db.database.pool.query("select id, npx_command from mcp_servers where registry_name = 'io.github.octo/tides'");
    expect(row.rows[0]).toEqual({ id: "octo-tides", npx_command: "npx -y tides-mcp@1.2.3" });
    await fs.rm(file, { force: true });
  });

  it("refuses plain-http and private addresses", () => {
    const r = importCli("http://127.0.0.1:9/servers.json");
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("only https URLs are allowed");
    const p = importCli("https://127.0.0.1:9/servers.json");
    expect(p.stderr).toContain("private, loopback and link-local addresses are not allowed");
  });
});
