// Two organisations on one site (docs/product.md#organisations): everything of Beta's (its
// connection, toolset, registered server, members, audit log) stays out of reach of Alpha's owner
// and members, at the API, the gateway, the pages and every search, as it does for a person in no
// organisation. Each probe below is what a curious member of Alpha would try after seeing a URL or
// a name of Beta's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { joinOrg, listedRunning } from "~support/orgs.js";
import { newApiKey, raw, MCP_ACCEPT } from "~support/gateway.js";
import { startHostileUpstream, UPSTREAM_TOKEN, type HostileUpstream } from "~support/remote-upstreams.js";
import type { AuditPage } from "~/shared/audit.js";
import type { ConnectionView } from "~/shared/connections.js";
import { ORG_TEXT } from "~/shared/orgs.js";
import type { ToolsetView } from "~/shared/toolsets.js";

let t: TestApp;
let hostile: HostileUpstream;
let ann: Client & { id: string }; // Alpha's owner
let amy: Client & { id: string }; // Alpha's member
let bob: Client & { id: string }; // Beta's owner
let conn: ConnectionView;
let set: ToolsetView;
const SECRET_NAME = "beta-ledger-zx";

beforeAll(async () => {
  hostile = await startHostileUpstream();
  const port = await freePort();
  t = await createTestApp({
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // The operator's exception: this machine's loopback address, where the upstream listens.
    SANDBOX_EGRESS_ALLOW: "127.0.0.1",
    GATEWAY_RATE_FREE: "0",
  });
  await t.listen();
  ann = await signedInUser(t, "ann-iso@example.com");
  amy = await signedInUser(t, "amy-iso@example.com");
  bob = await signedInUser(t, "bob-iso@example.com");
  expect((await ann.post("/api/orgs", { name: "Alpha Ltd", slug: "alpha" })).status).toBe(201);
  expect((await bob.post("/api/orgs", { name: "Beta GmbH", slug: "beta" })).status).toBe(201);
  await joinOrg(t, ann, "alpha", "amy-iso@example.com", amy);

  const made = await bob.post("/api/connections", {
    owner: "beta",
    name: SECRET_NAME,
    url: hostile.url("/bearer/mcp"),
    headers: { Authorization: `Bearer ${UPSTREAM_TOKEN}` },
  });
  expect(made.status, await made.clone().text()).toBe(202);
  conn = ((await made.json()) as { connection: ConnectionView }).connection;
  await listedRunning<ConnectionView>(bob, "/api/connections", conn.id);
  const toolset = await bob.post("/api/toolsets", { owner: "beta", name: `${SECRET_NAME}-set`, members: [{ connection_id: conn.id }] });
  expect(toolset.status, await toolset.clone().text()).toBe(202);
  set = ((await toolset.json()) as { toolset: ToolsetView }).toolset;
  const server = await bob.post("/api/servers", {
    qualifiedName: "beta/radar",
    displayName: "Beta Radar",
    description: "Beta's own",
    connections: [{ type: "http", url: "https://radar.example.com/mcp" }],
  });
  expect(server.status, await server.clone().text()).toBe(201);
}, 300_000);

afterAll(async () => {
  await t?.close();
  await hostile?.close();
});

const page = async (c: Client, path: string) => {
  const r = await c.get(path);
  return { status: r.status, html: await r.text() };
};

describe("Alpha's people and Beta's things", () => {
  it("the API answers as for things that do not exist", async () => {
    for (const c of [ann, amy]) {
      expect((await c.get("/api/orgs/beta")).status).toBe(404);
      expect((await c.get("/api/orgs/beta/members")).status).toBe(404);
      expect((await c.get(`/api/connections/${conn.id}`)).status).toBe(404);
      expect((await c.get(`/api/toolsets/${set.id}`)).status).toBe(404);
      expect(((await (await c.get("/api/connections")).json()) as ConnectionView[]).map((x) => x.id)).not.toContain(conn.id);
      expect(((await (await c.get("/api/toolsets")).json()) as ToolsetView[]).map((x) => x.id)).not.toContain(set.id);
      const listed = (await (await c.get("/api/servers")).json()) as { data: { qualifiedName: string }[] };
      expect(listed.data.map((s) => s.qualifiedName)).not.toContain("beta/radar");
      expect((await c.get(`/api/deployments/${conn.id}/requests`)).status).toBe(404);
    }
    // Alpha's owner may make things for Alpha, with nothing of Beta's in them.
    const crossed = await ann.post("/api/toolsets", { owner: "alpha", name: "stolen", members: [{ connection_id: conn.id }] });
    expect(crossed.status).toBe(404);
    for (const [path, body] of [
      ["/api/connections", { owner: "beta", name: "mine", url: hostile.url("/bearer/mcp") }],
      ["/api/toolsets", { owner: "beta", name: "mine", members: [{ connection_id: conn.id }] }],
      ["/api/deploy/everything", { owner: "beta", env: {} }],
    ] as const) {
      const r = await ann.post(path, body);
      expect(r.status, path).toBe(404);
      expect(((await r.json()) as { error: string }).error, path).toBe(ORG_TEXT.notFound);
    }
    expect((await ann.put(`/api/connections/${conn.id}`, { headers: { Authorization: "Bearer mine" } })).status).toBe(404);
    const radar = {
      qualifiedName: "beta/radar",
      displayName: "x",
      description: "x",
      connections: [{ type: "http", url: "https://x.example.com/mcp" }],
    };
    expect((await ann.put("/api/servers/beta/radar", radar)).status).toBe(403);
    expect((await ann.post("/api/servers", { ...radar, qualifiedName: "beta/second" })).status).toBe(400);
  });

  it("the gateway does not open Beta's connection or toolset to an Alpha key", async () => {
    for (const [who, c] of [
      ["ann", ann],
      ["amy", amy],
    ] as const) {
      const key = await newApiKey(c, `${who}-probe`);
      for (const url of [conn.url, set.url]) {
        const init = await raw(url, {
          headers: { authorization: `Bearer ${key}`, accept: MCP_ACCEPT },
          body: {
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
          },
        });
        expect(init.status, `${who} ${url}`).toBe(404);
      }
    }
  });

  it("the pages show nothing of Beta's, whichever ?as= they are given", async () => {
    for (const c of [ann, amy]) {
      expect((await page(c, "/orgs/beta")).status).toBe(404);
      for (const path of [`/connections/${SECRET_NAME}?as=beta`, `/toolsets/${SECRET_NAME}-set?as=beta`]) {
        const p = await page(c, path);
        expect(p.status, path).toBe(404);
        expect(p.html, path).not.toContain(hostile.url("/bearer/mcp"));
      }
      for (const path of [
        "/connections?as=beta",
        "/toolsets?as=beta",
        "/deployments",
        "/orgs",
        "/profile",
        "/servers/server/new?as=beta",
      ]) {
        const p = await page(c, path);
        expect(p.status, path).toBe(200);
        expect(p.html, path).not.toContain(SECRET_NAME);
        expect(p.html, path).not.toContain("Beta GmbH");
      }
      // Beta's registered server has a public page; it offers Alpha's people neither Edit nor Beta's deployments.
      const radar = await page(c, "/server/beta/radar?as=beta");
      expect(radar.status).toBe(200);
      expect(radar.html).toContain(ORG_TEXT.ownedBy("Beta GmbH"));
      expect(radar.html).not.toContain("/servers/server/beta/radar/edit");
      expect((await page(c, "/servers/server/beta/radar/edit")).status).toBe(403);
    }
    // Beta's owner sees them there: the probes above look where they are.
    expect((await page(bob, "/connections?as=beta")).html).toContain(SECRET_NAME);
    expect((await page(bob, "/toolsets?as=beta")).html).toContain(`${SECRET_NAME}-set`);
    expect((await page(bob, "/servers/server/new?as=beta")).html).toContain("Beta GmbH");
    expect((await page(bob, `/connections/${SECRET_NAME}?as=beta`)).status).toBe(200);
    expect((await page(bob, "/server/beta/radar")).html).toContain("/servers/server/beta/radar/edit");
  });

  it("no search finds Beta's private names: the directory, its API, and the audit log's filters", async () => {
    for (const c of [ann, amy]) {
      const found = (await (await c.get(`/api/mcp-servers?q=${SECRET_NAME}`)).json()) as { data?: unknown[]; servers?: unknown[] };
      expect(JSON.stringify(found)).not.toContain(SECRET_NAME);
      const directory = (await page(c, `/?q=${SECRET_NAME}`)).html;
      expect(directory).not.toContain(`/connections/${SECRET_NAME}`);
      expect(directory).not.toContain("Beta GmbH");
      const scoped = await c.get("/api/audit?scope=beta");
      expect(scoped.status).toBe(404);
      // Filtering one's own log by Beta's owner or Beta's actions finds none of their rows.
      for (const q of ["actor=bob-iso", "action=connection.create", "action=toolset.create", "action=server.register"]) {
        const own = (await (await c.get(`/api/audit?${q}`)).json()) as AuditPage;
        expect(
          own.entries.filter((e) => e.org === "beta" || e.actor_id === bob.id),
          q,
        ).toEqual([]);
      }
      const auditPage = await page(c, "/audit?scope=beta");
      expect(auditPage.html).not.toContain(SECRET_NAME);
    }
    // Beta's owner does see them: the probes above could have found them.
    const theirs = (await (await bob.get("/api/audit?scope=beta&action=connection.create")).json()) as AuditPage;
    expect(theirs.entries.map((e) => e.org)).toEqual(["beta"]);
  });
});
