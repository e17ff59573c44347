// Plan limits on deploying, deleting an account with running deployments, and what the operator's
// sandbox settings allow (hosting closed to non-admins without a sandbox, refusing to start).
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type TestApp } from "~support/app.js";
import { registerFixture, startDeploymentsApp, type DeploymentsApp } from "~support/deployments-app.js";
import { EVERYTHING, addCatalogEntry, alive, deploymentsOf, removeDataDir, waitForStatus } from "~support/deployments.js";
import { DEPLOY_TEXT, SLEEP_TEXT, SANDBOX_TEXT, type DeploymentView } from "~/shared/deployments.js";
import { loadConfig } from "../../config.js";
import { createLogger } from "../../log.js";
import { createHosting } from "../runtime/sandbox/detect.js";

let t: TestApp;
let deployFixture: DeploymentsApp["deployFixture"];
let app: DeploymentsApp | undefined;

beforeAll(async () => {
  app = await startDeploymentsApp();
  ({ t, deployFixture } = app);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

describe("plan limits", () => {
  it("10 parallel deploy requests from a Free user end with exactly 1 deployment; deploying again is never counted and keeps the URL", async () => {
    const c = await signedInUser(t, "parallel@example.com");
    for (let i = 0; i < 10; i++) await addCatalogEntry(t, `par-${i}`, `npx -y ${EVERYTHING}`);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => c.post(`/api/deploy/par-${i}`, { env: {} })));
    const codes = answers.map((r) => r.status).sort();
    expect(codes).toEqual([202, 403, 403, 403, 403, 403, 403, 403, 403, 403]);
    const refused = answers.find((r) => r.status === 403)!;
    expect(((await refused.json()) as { error: string }).error).toBe(SLEEP_TEXT.noRoom("Free", 1));
    const mine = (await (await c.get("/api/deployments")).json()) as DeploymentView[];
    expect(mine).toHaveLength(1);
    const first = await waitForStatus(c, mine[0]!.server_id, "running", 60_000);

    // A plan counts what is kept and awake, never deploy actions: stopping and deploying again is
    // allowed as often as one likes, and the same server keeps its URL every time.
    await c.del(`/api/deployments/${first.id}`);
    const urls = new Map<string, string>();
    for (const id of ["par-1", "par-2", "par-1", "par-2", "par-1"]) {
      const r = await c.post(`/api/deploy/${id}`, { env: {} });
      expect(r.status).toBe(202);
      const d = ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
      if (urls.has(id)) expect(d.url).toBe(urls.get(id));
      else urls.set(id, d.url);
      await c.del(`/api/deployments/${d.id}`);
    }
    expect(urls.get("par-1")).not.toBe(urls.get("par-2"));
    const again = await c.post(`/api/deploy/${first.server_id}`, { env: {} });
    expect(again.status).toBe(202);
    expect(((await again.json()) as { deploymentInfo: DeploymentView }).deploymentInfo.url).toBe(first.url);
  }, 120_000);
});

describe("accounts and operators", () => {
  it("deleting an account stops its deployments first", async () => {
    const c = await signedInUser(t, "leaving@example.com");
    await registerFixture(c, "leaving");
    await deployFixture(c, "leaving/fixture", {});
    const d = await waitForStatus(c, "leaving/fixture", "running", 60_000);
    const { pid } = (await t.db.database.pool.query("select pid from deployments where id = $1", [d.id])).rows[0] as { pid: number };
    expect(alive(pid)).toBe(true);
    expect((await c.del(`/api/users/${c.id}`, { confirmEmail: "leaving@example.com" })).status).toBe(200);
    expect(alive(pid)).toBe(false);
    expect((await t.db.database.pool.query("select count(*)::int as n from deployments where id = $1", [d.id])).rows[0]).toEqual({ n: 0 });
  }, 120_000);

  it("without a sandbox the admin page says so loudly, and only admins may deploy (unless the operator opts in)", async () => {
    const plain = await createTestApp({ SANDBOX: "off", ADMIN_EMAILS: "ops@example.com" });
    try {
      const ops = await signedInUser(plain, "ops@example.com");
      const page = await (await ops.get("/admin/mcp-servers")).text();
      expect(page).toContain("SANDBOX=off: hosted MCP servers run as plain processes");
      expect(page).toContain(SANDBOX_TEXT.adminsOnly);
      expect(page).toMatch(/data-testid="guarantee-namespaces" data-ok="false"/);
      await addCatalogEntry(plain, "everything", `npx -y ${EVERYTHING}`);
      const user = await signedInUser(plain, "user@example.com");
      const refused = await user.post("/api/deploy/everything", { env: {} });
      expect(refused.status).toBe(503);
      expect(((await refused.json()) as { error: string }).error).toBe(DEPLOY_TEXT.hostingClosed);
      expect(await deploymentsOf(user, "everything")).toEqual([]);
      const serverPage = await (await user.get("/server/everything")).text();
      expect(serverPage).toContain(DEPLOY_TEXT.hostingClosed);
      const accepted = await ops.post("/api/deploy/everything", { env: {} });
      expect(accepted.status).toBe(202);
      const d = await waitForStatus(ops, "everything", "running", 60_000);
      expect((await (await ops.get("/server/everything")).text()).includes(DEPLOY_TEXT.hostingClosed)).toBe(false);

      // After a restart on this machine, a deployment of someone who is not an admin stays down, and says why.
      const other = await signedInUser(plain, "earlier@example.com");
      await plain.db.database.pool.query(
        `insert into deployments (id, user_id, server_kind, server_ref, source, secrets, status, proxy_id) values ('00000000-0000-4000-8000-000000000001', $1, 'catalog', 'everything', $2, $3, 'running', 'recovered-proxy')`,
        [other.id, JSON.stringify({ kind: "npm", package: EVERYTHING, version: null, args: [] }), plain.box.seal({})],
      );
      await plain.services.deployments.recover();
      const [kept] = await deploymentsOf(other, "everything");
      expect(kept).toMatchObject({ status: "failed", status_detail: DEPLOY_TEXT.hostingClosed });
      await ops.del(`/api/deployments/${d.id}`);
    } finally {
      await plain.close();
    }
    const open = await createTestApp({ SANDBOX: "off", SANDBOX_INCOMPLETE: "everyone" });
    try {
      await addCatalogEntry(open, "everything", `npx -y ${EVERYTHING}`);
      const user = await signedInUser(open, "anyone@example.com");
      const r = await user.post("/api/deploy/everything", { env: {} });
      expect(r.status).toBe(202);
      const d = ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
      await user.del(`/api/deployments/${d.id}`);
    } finally {
      await open.close();
    }
  }, 120_000);

  it("refuses to start when the sandbox uids would include a real account of the host", async (ctx) => {
    if (process.getuid?.() !== 0) return ctx.skip("own uids per deployment need a root platform");
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-uids-"));
    try {
      const config = loadConfig({ NODE_ENV: "test", DATA_DIR: dir, SANDBOX_UID_BASE: "1000" });
      const hosting = createHosting(
        config,
        { data: dir, deployments: path.join(dir, "deployments"), packages: path.join(dir, "packages") },
        createLogger({ level: "silent", pretty: false }),
      );
      // nobody (65534) is an account on every Debian system.
      await expect(hosting).rejects.toThrow(/SANDBOX_UID_BASE 1000\.\.66535 includes \w+ \(\d+\) of \/etc\/(passwd|group)/);
    } finally {
      await removeDataDir(dir);
    }
  });

  it("SANDBOX=strict refuses to start where a protection is missing, naming it", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-strict-"));
    try {
      const config = loadConfig({ NODE_ENV: "test", DATA_DIR: dir, SANDBOX: "strict", SANDBOX_NETWORK: "host" });
      const start = createHosting(
        config,
        { data: dir, deployments: path.join(dir, "deployments"), packages: path.join(dir, "packages") },
        createLogger({ level: "silent", pretty: false }),
      );
      await expect(start).rejects.toThrow(/SANDBOX=strict[\s\S]*Egress to public addresses only: missing/);
    } finally {
      await removeDataDir(dir);
    }
  });
});
