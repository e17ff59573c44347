import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { newApiKey, rawSession, sseRequest } from "~support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "~support/git-fixture.js";
import { publicClient, tokensFor } from "../features/oauth/oauth-test-support.js";
import { projectRoot } from "../paths.js";

// Two processes of one Switchboard on one database, as behind a load balancer: the same public
// URL and secrets, each with its own connection pool, caches and bus. B serves the gateway on a
// real port and runs the deployed fixture server; the writes go through A.

let a: TestApp;
let b: TestApp;
let repo: FixtureRepo;
let origin: string;
/** the owner of the deployment, signed in on each process */
let ownerA: Client;
let ownerB: Client & { id: string };
let url: string;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const shared = {
    PUBLIC_URL: origin,
    AUTH_SECRET: "cluster-test-auth-secret-0123456789abcdef",
    SECRETS_KEY: "cluster-test-secrets-key-0123456789abcdef",
    ADMIN_EMAILS: "admin@example.com",
    AUTH_RATE_LIMIT: "on",
    GIT_ALLOW_FILE: "on",
  };
  a = await createTestApp({ ...shared, PORT: String(await freePort()) });
  b = await createTestApp({ ...shared, PORT: String(port) }, { sameDatabaseAs: a });
  await b.listen();
  repo = await createFixtureRepo();
  ownerB = await signedInUser(b, "owner@example.com");
  ownerA = client(a.app, origin);
  expect((await ownerA.post("/api/auth/sign-in/email", { email: "owner@example.com", password: "password123" })).status).toBe(200);
  await registerOwnedServer(ownerB, "owner/fixture", "fixture");
  const r = await ownerB.post("/api/deploy/owner/fixture", { repositoryUrl: repo.url, env: {} });
  expect(r.status, await r.clone().text()).toBe(202);
  url = (await waitForStatus(ownerB, "owner/fixture", "running", 60_000)).url;
}, 120_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await repo?.cleanup();
});

describe("revocations reach every process", () => {
  it("a key revoked through one process is refused by the other's gateway on the next request, and its open sessions there end", async () => {
    const key = await newApiKey(ownerB, "temporary");
    const s = await rawSession(url, key);
    // B's gateway has verified the key and trusts it for a while without asking the database.
    expect((await s.call(2, "tools/list")).status).toBe(200);
    const stream = sseRequest(url, { method: "GET", headers: { ...s.headers, accept: "text/event-stream" } });
    expect((await stream.response).statusCode).toBe(200);
    expect((await ownerA.del("/api/auth/apikeys/temporary")).status).toBe(200);
    const r = await s.call(3, "tools/list");
    expect(r.status).toBe(401);
    expect(r.headers["www-authenticate"]).toContain('error="invalid_token"');
    await expect(stream.next(3000)).resolves.toBeNull();
  });

  it("tools hidden through one process are gone from the other's gateway on the next request, and its open sessions are told", async () => {
    const key = await newApiKey(ownerB, "tools");
    const s = await rawSession(url, key);
    const listed = async (id: number) =>
      ((await s.call(id, "tools/list")).json<{ result: { tools: { name: string }[] } }>().result.tools ?? []).map((t) => t.name);
    // B's gateway has the deployment (and so its tool selection) cached.
    expect(await listed(2)).toContain("echo");
    const stream = sseRequest(url, { method: "GET", headers: { ...s.headers, accept: "text/event-stream" } });
    expect((await stream.response).statusCode).toBe(200);
    const [d] = ((await (await ownerA.get("/api/deployments/server/owner/fixture")).json()) as { deployments: { id: string }[] })
      .deployments;
    expect((await ownerA.put(`/api/deployments/${d!.id}/tools`, { hidden: ["echo"] })).status).toBe(200);
    expect(await stream.next(3000)).toMatchObject({ data: expect.stringContaining("notifications/tools/list_changed") });
    expect(await listed(3)).not.toContain("echo");
    expect((await s.call(4, "tools/call", { name: "echo", arguments: { message: "x" } })).json()).toMatchObject({
      error: { code: -32602 },
    });
    expect((await ownerA.put(`/api/deployments/${d!.id}/tools`, { hidden: [] })).status).toBe(200);
    expect(await listed(5)).toContain("echo");
  });

  it("an OAuth grant revoked through one process is refused by the other's gateway on the next request", async () => {
    const clientId = await publicClient(a);
    const { access } = await tokensFor(a, ownerA, clientId, url);
    const s = await rawSession(url, access);
    expect((await s.call(2, "tools/list")).status).toBe(200);
    const apps = (await (await ownerA.get("/api/auth/connected-apps")).json()) as { data: { id: string }[] };
    expect((await ownerA.del(`/api/auth/connected-apps/${apps.data[0]!.id}`)).status).toBe(200);
    expect((await s.call(3, "tools/list")).status).toBe(401);
  });
});

describe("rate limits hold across processes", () => {
  it("counts sign-in attempts for one account through both processes together: the 11th is refused by either", async () => {
    const viaA = client(a.app, origin);
    const viaB = client(b.app, origin);
    for (let i = 0; i < 10; i++) {
      const r = await (i % 2 ? viaA : viaB).post("/api/auth/sign-in/email", { email: "target@example.com", password: `guess-${i}-xx` });
      expect(r.status).toBe(401);
    }
    for (const c of [viaA, viaB]) {
      const refused = await c.post("/api/auth/sign-in/email", { email: "target@example.com", password: "guess-final" });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(800);
    }
  });
});

describe("the catalogue cache", () => {
  it("a write through one process shows in the other's very next read", async () => {
    const submitter = await signedInUser(a, "submitter@example.com");
    const admin = await signedInUser(a, "admin@example.com");
    const entry = {
      name: "Cluster Cache Probe",
      description: "d",
      category: "Data & Storage",
      type: "Community",
      source: "user_submitted",
      tags: ["probe"],
      repository_url: "https://github.com/example/probe",
      url: "",
    };
    expect((await submitter.post("/api/mcp-servers", entry)).status).toBe(201);
    const detail = () => b.app.request("/api/mcp-servers/cluster-cache-probe");
    const found = async () =>
      ((await (await b.app.request("/api/mcp-servers?q=probe")).json()) as { data: { id: string }[] }).data.map((s) => s.id);
    // B's pages come from the pages' bundle, with its own copy of the catalogue's modules.
    const page = async () => (await b.app.request("/server/cluster-cache-probe")).status;
    const searchPage = async () => (await (await b.app.request("/?q=probe")).text()).includes("/server/cluster-cache-probe");
    // B reads, and so caches, the entry while it is pending.
    expect((await detail()).status).toBe(404);
    expect(await found()).not.toContain("cluster-cache-probe");
    expect(await page()).toBe(404);
    expect(await searchPage()).toBe(false);
    expect((await admin.post("/api/admin/mcp-servers/cluster-cache-probe/approve")).status).toBe(200);
    expect((await detail()).status).toBe(200);
    expect(await found()).toContain("cluster-cache-probe");
    expect(await page()).toBe(200);
    expect(await searchPage()).toBe(true);
    expect((await admin.post("/api/admin/mcp-servers/cluster-cache-probe/unapprove")).status).toBe(200);
    expect((await detail()).status).toBe(404);
    expect(await found()).not.toContain("cluster-cache-probe");
    expect(await page()).toBe(404);
    expect(await searchPage()).toBe(false);
  });

  it("an import from the command line (a process of its own) clears the running processes' caches", async () => {
    const file = path.join(os.tmpdir(), `cluster-import-${process.pid}.json`);
    await fs.writeFile(
      file,
      JSON.stringify([
        {
          name: "io.github.octo/tidal-cache",
          description: "Tide tables",
          version: "1.0.0",
          packages: [{ registryType: "npm", identifier: "tidal-cache-mcp", version: "1.0.0", transport: { type: "stdio" } }],
        },
      ]),
    );
    // The entry's page, and a search (answered by each process's in-process index).
    const found = async (t: TestApp) => {
      const page = (await t.app.request("/api/mcp-servers/octo-tidal-cache")).status;
      const search = (await (await t.app.request("/api/mcp-servers?q=tide")).json()) as { data: { id: string }[] };
      return page === 200 && search.data.some((s) => s.id === "octo-tidal-cache") ? 200 : 404;
    };
    expect(await found(a)).toBe(404);
    expect(await found(b)).toBe(404);
    const r = await promisify(execFile)(
      process.execPath,
      [path.join(projectRoot, "node_modules/tsx/dist/cli.mjs"), "src/server/cli/catalog-import.ts", file],
      { cwd: projectRoot, env: { PATH: process.env.PATH, DATABASE_URL: a.db.url }, timeout: 60_000 },
    );
    expect(r.stdout).toContain("1 created");
    await fs.rm(file, { force: true });
    // The command does not wait for receipts; the message is on its way before it exits. The cache's TTL is 30 s.
    const deadline = Date.now() + 1000;
    while ((await found(a)) !== 200 || (await found(b)) !== 200) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 20));
    }
  });
});
