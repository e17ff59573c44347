// An organisation's connections and toolsets (docs/product.md#organisations): a connection made as
// the organisation by one of its admins sends the organisation's headers to the upstream whichever
// member calls, with the member's own key; a toolset made as the organisation combines its own
// deployments and connections only. A member may use them, not change them (the organisation's
// setting says so); someone outside learns nothing of either. Both land in the organisation's audit log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { joinOrg, listedRunning } from "~support/orgs.js";
import { newApiKey, raw, sdkClient, textOf, MCP_ACCEPT } from "~support/gateway.js";
import { startHostileUpstream, UPSTREAM_TOKEN, type HostileUpstream } from "~support/remote-upstreams.js";
import type { AuditPage } from "~/shared/audit.js";
import { CONNECTION_TEXT, type ConnectionView } from "~/shared/connections.js";
import { ORG_TEXT } from "~/shared/orgs.js";
import { TOOLSET_TEXT, type ToolsetView } from "~/shared/toolsets.js";

let t: TestApp;
let hostile: HostileUpstream;
let owner: Client & { id: string };
let ben: Client & { id: string };
let eve: Client & { id: string };

beforeAll(async () => {
  hostile = await startHostileUpstream();
  const port = await freePort();
  t = await createTestApp({
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    // The operator's exception: this machine's loopback address, where the upstream listens.
    SANDBOX_EGRESS_ALLOW: "127.0.0.1",
    RESTART_BACKOFF_MS: "200",
    DEPLOY_START_TIMEOUT_MS: "20000",
    GATEWAY_RATE_FREE: "0",
  });
  await t.listen();
  owner = await signedInUser(t, "olga@example.com");
  ben = await signedInUser(t, "ben@example.com");
  eve = await signedInUser(t, "eve@example.com");
  expect((await owner.post("/api/orgs", { name: "Acme Inc.", slug: "acme" })).status).toBe(201);
  expect((await eve.post("/api/orgs", { name: "Evil Corp", slug: "evil" })).status).toBe(201);
  await joinOrg(t, owner, "acme", "ben@example.com", ben);
}, 300_000);

afterAll(async () => {
  await t?.close();
  await hostile?.close();
});

const send = (c: Client, method: "PUT" | "DELETE" | "POST", path: string, body?: unknown) =>
  method === "PUT" ? c.put(path, body) : method === "DELETE" ? c.del(path, body) : c.post(path, body);
const errorOf = async (r: Response) => ((await r.json()) as { error: string }).error;

describe("an organisation's connection and toolset", () => {
  let conn: ConnectionView;
  let set: ToolsetView;
  let benKey: string;
  let eveKey: string;
  const body = { owner: "acme", name: "shared", url: "", headers: { Authorization: `Bearer ${UPSTREAM_TOKEN}` } };

  it("is connected by an admin as the organisation; a member may not, an outsider learns nothing", async () => {
    body.url = hostile.url("/bearer/mcp");
    const member = await ben.post("/api/connections", body);
    expect(member.status).toBe(403);
    expect(await errorOf(member)).toBe(ORG_TEXT.notAllowedDeploy);
    for (const slug of ["acme", "nope"]) {
      const r = await eve.post("/api/connections", { ...body, owner: slug });
      expect(r.status).toBe(404);
      expect(await errorOf(r)).toBe(ORG_TEXT.notFound);
    }
    const r = await owner.post("/api/connections", body);
    expect(r.status, await r.clone().text()).toBe(202);
    conn = ((await r.json()) as { connection: ConnectionView }).connection;
    expect(conn.org).toEqual({ slug: "acme", name: "Acme Inc.", role: "owner", manage: true });
    // Its name is the organisation's: the owner's own connection may have it too.
    const mine = await owner.post("/api/connections", { ...body, owner: undefined });
    expect(mine.status, await mine.clone().text()).toBe(202);
    await listedRunning<ConnectionView>(owner, "/api/connections", conn.id);
  });

  it("sends the organisation's header whichever member calls, with the member's own key", async () => {
    const seen = ((await (await ben.get("/api/connections")).json()) as ConnectionView[]).find((c) => c.id === conn.id);
    expect(seen?.org).toEqual({ slug: "acme", name: "Acme Inc.", role: "member", manage: false });
    expect(seen?.header_names).toEqual(["Authorization"]);
    expect(JSON.stringify(seen)).not.toContain(UPSTREAM_TOKEN);
    benKey = await newApiKey(ben, "ben");
    const client = await sdkClient(conn.url, benKey);
    const sent = JSON.parse(textOf(await client.callTool({ name: "headers", arguments: {} }))) as Record<string, string>;
    expect(sent.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`);
    expect(JSON.stringify(sent)).not.toContain(benKey);
    await client.close();

    // Someone outside: the URL is not found, as any other user's.
    eveKey = await newApiKey(eve, "eve");
    const init = await raw(conn.url, {
      headers: { authorization: `Bearer ${eveKey}`, accept: MCP_ACCEPT },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "e", version: "1" } },
      },
    });
    expect(init.status).toBe(404);
    expect(((await (await eve.get("/api/connections")).json()) as ConnectionView[]).map((c) => c.id)).not.toContain(conn.id);
    const peek = await eve.get(`/api/connections/${conn.id}`);
    expect(peek.status).toBe(404);
    expect(await errorOf(peek)).toBe(CONNECTION_TEXT.notFound);
    expect((await ben.get(`/api/connections/${conn.id}`)).status).toBe(200);
  });

  it("may not be changed or removed by a member, nor by an outsider", async () => {
    for (const [method, path, payload] of [
      ["PUT", `/api/connections/${conn.id}`, { headers: { Authorization: "Bearer mine" } }],
      ["DELETE", `/api/connections/${conn.id}`, undefined],
      ["POST", `/api/connections/${conn.id}/authorize`, {}],
    ] as const) {
      const asBen = await send(ben, method, path, payload);
      expect(asBen.status, `${method} ${path}`).toBe(403);
      expect(await errorOf(asBen)).toBe(ORG_TEXT.notAllowedDeploy);
      expect((await send(eve, method, path, payload)).status, `${method} ${path}`).toBe(404);
    }
    // Still the organisation's header, still running.
    const client = await sdkClient(conn.url, benKey);
    const sent = JSON.parse(textOf(await client.callTool({ name: "headers", arguments: {} }))) as Record<string, string>;
    expect(sent.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`);
    await client.close();
  });

  it("combines the organisation's own servers in its toolset, never a person's, and its members call through it", async () => {
    const mine = ((await (await owner.get("/api/connections")).json()) as ConnectionView[]).find((c) => c.name === "shared" && !c.org)!;
    // A person's toolset cannot take the organisation's connection, nor the organisation's a person's.
    const personal = await owner.post("/api/toolsets", { name: "mixed", members: [{ connection_id: conn.id }] });
    expect(personal.status).toBe(404);
    expect(await errorOf(personal)).toBe(TOOLSET_TEXT.memberNotFound);
    const crossed = await owner.post("/api/toolsets", { owner: "acme", name: "mixed", members: [{ connection_id: mine.id }] });
    expect(crossed.status).toBe(404);
    expect(await errorOf(crossed)).toBe(TOOLSET_TEXT.memberNotFound);
    // A member may not make one for it; an outsider cannot even name it.
    const member = await ben.post("/api/toolsets", { owner: "acme", name: "team", members: [{ connection_id: conn.id }] });
    expect(member.status).toBe(403);
    expect((await eve.post("/api/toolsets", { owner: "acme", name: "team", members: [{ connection_id: conn.id }] })).status).toBe(404);

    const r = await owner.post("/api/toolsets", { owner: "acme", name: "team", members: [{ connection_id: conn.id, prefix: "up" }] });
    expect(r.status, await r.clone().text()).toBe(202);
    set = ((await r.json()) as { toolset: ToolsetView }).toolset;
    // A member may make a key for the organisation's toolset alone; someone outside may not name it.
    const only = { name: "team only", scopes: ["mcp"], resources: ["toolset:team"] };
    expect((await ben.post("/api/auth/apikeys", only)).status).toBe(201);
    expect((await eve.post("/api/auth/apikeys", only)).status).toBe(400);
    expect(set.org?.slug).toBe("acme");
    await listedRunning<ToolsetView>(owner, "/api/toolsets", set.id);

    const seen = ((await (await ben.get("/api/toolsets")).json()) as ToolsetView[]).find((x) => x.id === set.id);
    expect(seen?.org?.manage).toBe(false);
    expect(seen?.members.map((m) => m.name)).toEqual(["shared"]);
    const client = await sdkClient(set.url, benKey);
    const tools = (await client.listTools()).tools.map((x) => x.name);
    expect(tools).toContain("up_headers");
    const sent = JSON.parse(textOf(await client.callTool({ name: "up_headers", arguments: {} }))) as Record<string, string>;
    expect(sent.authorization).toBe(`Bearer ${UPSTREAM_TOKEN}`);
    await client.close();

    expect((await send(ben, "PUT", `/api/toolsets/${set.id}`, { name: "team", members: [{ connection_id: conn.id }] })).status).toBe(403);
    expect((await send(ben, "DELETE", `/api/toolsets/${set.id}`)).status).toBe(403);
    expect((await eve.get(`/api/toolsets/${set.id}`)).status).toBe(404);
    expect(((await (await eve.get("/api/toolsets")).json()) as ToolsetView[]).map((x) => x.id)).not.toContain(set.id);
  });

  it("writes both to the organisation's audit log, and its admins change and remove them", async () => {
    for (const action of ["connection.create", "toolset.create"]) {
      const page = (await (await owner.get(`/api/audit?scope=acme&action=${action}`)).json()) as AuditPage;
      expect(page.entries.length, action).toBe(1);
      expect(page.entries[0]!.org).toBe("acme");
    }
    const edited = await send(owner, "PUT", `/api/connections/${conn.id}`, { headers: { "X-Team": "acme" } });
    expect(edited.status, await edited.clone().text()).toBe(202);
    const page = (await (await owner.get("/api/audit?scope=acme&action=connection.edit")).json()) as AuditPage;
    expect(page.entries.length).toBe(1);
    expect((await send(owner, "DELETE", `/api/toolsets/${set.id}`)).status).toBe(200);
    expect((await send(owner, "DELETE", `/api/connections/${conn.id}`)).status).toBe(200);
    const removed = (await (await owner.get("/api/audit?scope=acme&action=connection.remove")).json()) as AuditPage;
    expect(removed.entries.length).toBe(1);
  });
});
