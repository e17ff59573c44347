import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type Client, type TestApp } from "../../../../tests/support/app.js";
import { EVERYTHING, addCatalogEntry, alive, deploymentsOf, waitForStatus } from "../../../../tests/support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "../../../../tests/support/git-fixture.js";
import { DEPLOY_TEXT, type DeploymentView } from "../../../shared/deployments.js";

let t: TestApp;
let repo: FixtureRepo;
let owner: Client & { id: string };

const text = (r: unknown) => ((r as { content: { text: string }[] }).content[0]?.text ?? "");

async function registerFixture(c: Client, username: string, name = "fixture") {
  const r = await c.post("/api/servers", {
    qualifiedName: `${username}/${name}`,
    displayName: "Fixture",
    description: "A small MCP server from a git repository",
    repositoryUrl: "https://example.com/fixture/repo",
    keywords: "test",
    connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
  });
  expect(r.status).toBe(201);
}

async function deployFixture(c: Client, qn: string, env: Record<string, string> = {}) {
  const r = await c.post(`/api/deploy/${qn}`, { repositoryUrl: repo.url, env });
  expect(r.status, await r.clone().text()).toBe(202);
  return ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
}

beforeAll(async () => {
  t = await createTestApp({ GIT_ALLOW_FILE: "on", RESTART_BACKOFF_MS: "200", CRASH_LOOP_AFTER: "3", DEPLOY_START_TIMEOUT_MS: "20000" });
  repo = await createFixtureRepo();
  owner = await signedInUser(t, "owner@example.com");
  await registerFixture(owner, "owner");
  await addCatalogEntry(t, "everything", `npx -y ${EVERYTHING}`);
}, 120_000);
afterAll(async () => {
  await t?.close();
  await repo?.cleanup();
});

describe("deploying from npm", () => {
  it("installs server-everything, reaches running, lists its tools, and stops", async () => {
    const dana = await signedInUser(t, "dana@example.com");
    const r = await dana.post("/api/deploy/everything", { env: {} });
    expect(r.status).toBe(202);
    const body = (await r.json()) as { success: boolean; message: string; deploymentInfo: DeploymentView };
    expect(body.success).toBe(true);
    expect(body.message).toBe(DEPLOY_TEXT.started);
    expect(body.deploymentInfo).toMatchObject({ server_id: "everything", status: "queued", host_port: 3000 });
    expect(body.deploymentInfo.url).toBe(`http://localhost:3000/${body.deploymentInfo.proxy_id}/mcp`);

    const running = await waitForStatus(dana, "everything", "running", 180_000);
    const client = t.runtime.supervisor.client(running.id)!;
    const tools = (await client.listTools()).tools.map((x) => x.name);
    expect(tools).toContain("echo");
    expect(text(await client.callTool({ name: "echo", arguments: { message: "hi there" } }))).toContain("hi there");

    // Everyone sees the tools on the server page, from the stored listing.
    const page = await (await t.app.request("http://localhost:3000/server/everything")).text();
    expect(page).toContain("Tools");
    expect(page).toMatch(/>echo</);

    // GET /api/deployments lists it; another user sees nothing of it.
    expect(((await (await dana.get("/api/deployments")).json()) as DeploymentView[]).map((d) => d.id)).toEqual([running.id]);
    const [{ pid }] = (await t.db.database.pool.query("select pid from deployments where id = $1", [running.id])).rows as { pid: number }[];
    expect(alive(pid)).toBe(true);
    const stranger = await signedInUser(t, "stranger@example.com");
    expect((await stranger.del(`/api/deployments/${running.id}`)).status).toBe(404);
    expect((await stranger.get(`/api/deployments/${running.id}/logs`)).status).toBe(404);

    const stop = await dana.del(`/api/deployments/${running.id}`);
    expect(stop.status).toBe(200);
    expect(await stop.json()).toEqual({ success: true, message: DEPLOY_TEXT.stopped });
    expect(alive(pid)).toBe(false);
    expect(await deploymentsOf(dana, "everything")).toEqual([]);
  }, 240_000);

  it("a second deploy of the same version starts from the cache in well under 3 s", async () => {
    const erin = await signedInUser(t, "erin@example.com");
    const t0 = performance.now();
    await erin.post("/api/deploy/everything", { env: {} });
    const d = await waitForStatus(erin, "everything", "running", 30_000);
    expect(performance.now() - t0).toBeLessThan(3000);
    await erin.del(`/api/deployments/${d.id}`);
  }, 60_000);
});

describe("deploying from a git repository", () => {
  it("clones, installs and runs the fixture; it answers tools/list and tools/call", async () => {
    const d = await deployFixture(owner, "owner/fixture", { FIXTURE_TOKEN: "tok-abcdef-123456" });
    expect(d.source).toBe(repo.url);
    const running = await waitForStatus(owner, "owner/fixture", "running");
    const client = t.runtime.supervisor.client(running.id)!;
    expect((await client.listTools()).tools.map((x) => x.name)).toEqual(expect.arrayContaining(["echo", "add", "read_file"]));
    expect(text(await client.callTool({ name: "add", arguments: { a: 2, b: 40 } }))).toBe("42");
    // Its environment: its own secret, a minimal PATH/HOME, nothing of the platform's.
    const names = text(await client.callTool({ name: "list_env", arguments: {} })).split("\n");
    const expected = ["FIXTURE_TOKEN", "HOME", "PATH", ...(t.runtime.supervisor.sandbox.kind === "bwrap" ? ["PWD"] : []), ...(process.env.NODE_EXTRA_CA_CERTS ? ["NODE_EXTRA_CA_CERTS"] : [])];
    expect(names.sort()).toEqual(expected.sort());
    expect(text(await client.callTool({ name: "get_env", arguments: { name: "FIXTURE_TOKEN" } }))).toBe("tok-abcdef-123456");
    // Total Deployments on the owned server's page counts real deploys.
    const page = await (await t.app.request("http://localhost:3000/server/owner/fixture")).text();
    expect(page).toMatch(/Total Deployments<\/dt><dd[^>]*>1</);
    expect(page).toMatch(/Status<\/dt><dd[^>]*>Deployed</);
    await owner.del(`/api/deployments/${running.id}`);
  }, 120_000);
});
