// What a deployment keeps from others (secrets, files, the network) and the input a deploy refuses.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInUser, type Client, type TestApp } from "~support/app.js";
import { registerFixture, startDeploymentsApp, toolText as text, type DeploymentsApp } from "~support/deployments-app.js";
import { EVERYTHING, addCatalogEntry, waitForStatus } from "~support/deployments.js";
import type { FixtureRepo } from "~support/git-fixture.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { GIT_TEXT } from "../runtime/sources/git/git-url.js";
import { NPX_TEXT } from "../runtime/sources/npm/npx.js";
import { COMMAND_TEXT } from "../runtime/command.js";

let t: TestApp;
let repo: FixtureRepo;
let owner: Client & { id: string };
let deployFixture: DeploymentsApp["deployFixture"];
let app: DeploymentsApp | undefined;

beforeAll(async () => {
  app = await startDeploymentsApp();
  ({ t, repo, owner, deployFixture } = app);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe("secrets and isolation", () => {
  it("a secret is absent from logs, API answers, the database and other children's environment", async () => {
    const secret = "sk-live-VERYSECRET-0123456789";
    const c = await signedInUser(t, "secret@example.com");
    await registerFixture(c, "secret");
    const info = await deployFixture(c, "secret/fixture", { API_TOKEN: secret, FIXTURE_PRINT_ENV: "1" });
    expect(JSON.stringify(info)).not.toContain(secret);
    const d = await waitForStatus(c, "secret/fixture", "running", 60_000);
    const logsRes = await (await c.get(`/api/deployments/${d.id}/logs`)).text();
    expect(logsRes).toContain("API_TOKEN=••••••");
    expect(logsRes).not.toContain(secret);
    expect(await (await c.get("/api/deployments")).text()).not.toContain(secret);
    const stored = (await t.db.database.pool.query("select secrets from deployments where id = $1", [d.id])).rows[0] as { secrets: string };
    expect(stored.secrets).toMatch(/^v1\./);
    expect(stored.secrets).not.toContain(secret);

    // The other user's child sees none of it.
    const o = await signedInUser(t, "other@example.com");
    await registerFixture(o, "other");
    await deployFixture(o, "other/fixture", {});
    const od = await waitForStatus(o, "other/fixture", "running", 60_000);
    const client = t.runtime.runner.client(od.id)!;
    expect(text(await client.callTool({ name: "get_env", arguments: { name: "API_TOKEN" } }))).toBe("(unset)");

    if (t.runtime.runner.sandbox.kind === "bwrap") {
      // Sandboxed: the platform's data, another deployment's directory and the database are out of reach.
      const read = async (p: string) => text(await client.callTool({ name: "read_file", arguments: { path: p } }));
      expect(await read(`${t.config.DATA_DIR}/secrets-key`)).toMatch(/^ERROR ENOENT/);
      expect(await read(`${t.config.DATA_DIR}/deployments/${d.id}/app/package.json`)).toMatch(/^ERROR ENOENT/);
      expect(await read(`${t.config.DATA_DIR}/deployments/${od.id}/app/package.json`)).toContain("mcp-fixture");
      expect(await read("/etc/shadow")).toMatch(/^ERROR ENOENT/);
      const pg = new URL(t.db.url);
      expect(text(await client.callTool({ name: "try_connect", arguments: { host: "127.0.0.1", port: Number(pg.port || 5432) } }))).toMatch(
        /^refused/,
      );
    } else {
      console.warn("bwrap is not available here: the sandbox checks did not run");
    }
    await c.del(`/api/deployments/${d.id}`);
    await o.del(`/api/deployments/${od.id}`);
  }, 120_000);

  it.each([
    ["npx -y pkg; rm -rf /", NPX_TEXT.shell],
    ["npx pkg && curl x", NPX_TEXT.shell],
    ["npx pkg | sh", NPX_TEXT.shell],
    ["npx $(whoami)", NPX_TEXT.shell],
    ["npx `id`", NPX_TEXT.shell],
    ["npx pkg\nrm -rf /", NPX_TEXT.newline],
    ["npx -c sh", NPX_TEXT.forbiddenOption("-c")],
    ["npx --call=sh pkg", NPX_TEXT.forbiddenOption("--call")],
    ["npx --registry=https://evil.example pkg", NPX_TEXT.forbiddenOption("--registry")],
    ["npx pkg --registry https://evil.example", NPX_TEXT.forbiddenOption("--registry")],
    ["npx pkg --prefix /tmp", NPX_TEXT.forbiddenOption("--prefix")],
    ["bash -c id", COMMAND_TEXT.unknown],
    ["python -c id", COMMAND_TEXT.onlyModule],
    ["python -m ../pkg", COMMAND_TEXT.invalidModule("../pkg")],
  ])("refuses the command %j", async (cmd, message) => {
    const r = await owner.post("/api/deploy/owner/fixture", { npx_command: cmd, env: {} });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe(message);
  });

  it.each([
    ["git@github.com:a/b.git", GIT_TEXT.ssh],
    ["ssh://github.com/a/b", GIT_TEXT.ssh],
    ["http://github.com/a/b", GIT_TEXT.http],
    ["https://user:pw@github.com/a/b", GIT_TEXT.credentials],
    ["https://127.0.0.1/a/b", GIT_TEXT.host],
    ["--upload-pack=touch /tmp/x", GIT_TEXT.option],
    ["ext::sh -c id", GIT_TEXT.transport],
  ])("refuses the repository URL %j", async (url, message) => {
    const r = await owner.post("/api/deploy/owner/fixture", { repositoryUrl: url, env: {} });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).toBe(message);
  });

  it("refuses reserved environment names and checks ownership and required keys", async () => {
    const bad = await owner.post("/api/deploy/owner/fixture", { repositoryUrl: repo.url, env: { NODE_OPTIONS: "--require /tmp/x.js" } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toBe(DEPLOY_TEXT.reservedEnv("NODE_OPTIONS"));
    const intruder = await signedInUser(t, "intruder@example.com");
    const r = await intruder.post("/api/deploy/owner/fixture", { repositoryUrl: repo.url, env: {} });
    expect(r.status).toBe(403);
    expect(((await r.json()) as { error: string }).error).toBe(DEPLOY_TEXT.notOwner);
    await addCatalogEntry(t, "needs-keys", `npx -y ${EVERYTHING}`, [
      { key: "GitHub Token", env_var: "GITHUB_TOKEN", description: "A token" },
      { key: "Org", env_var: "ORG", description: "Organisation" },
    ]);
    const missing = await intruder.post("/api/deploy/needs-keys", { env: { ORG: "acme" } });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe("Missing required API keys: GitHub Token");
    const anonymous = await t.app.request("http://localhost:3000/api/deploy/everything", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://localhost:3000" },
      body: "{}",
    });
    expect(anonymous.status).toBe(401);
  });
});
