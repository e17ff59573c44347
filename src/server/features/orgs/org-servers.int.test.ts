// An organisation's registered servers (docs/product.md#organisations): the slug is a namespace as a
// username is, so `acme/weather` is Acme's server. Those who may deploy for Acme register, edit and
// deploy it; its other members see it and use its deployments; someone outside cannot register
// under its name, edit it, or learn that the organisation exists. Its page says who owns it, and
// the organisation's audit log has the registration.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type Client, type TestApp } from "~support/app.js";
import { joinOrg } from "~support/orgs.js";
import type { AuditPage } from "~/shared/audit.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { ORG_TEXT } from "~/shared/orgs.js";
import { API_KEY_TEXT, SERVER_FORM_TEXT, type MyServerView, type OwnedServerView } from "~/shared/publishers.js";

let t: TestApp;
let owner: Client & { id: string };
let ben: Client & { id: string };
let eve: Client & { id: string };
let eveName: string;

const server = (qualifiedName: string, displayName = "Acme Weather") => ({
  qualifiedName,
  displayName,
  description: "Forecasts for the whole team",
  connections: [{ type: "http", url: "https://weather.example.com/mcp" }],
});
const errorOf = async (r: Response) => ((await r.json()) as { error: string }).error;

beforeAll(async () => {
  t = await createTestApp();
  owner = await signedInUser(t, "olga-servers@example.com");
  ben = await signedInUser(t, "ben-servers@example.com");
  eve = await signedInUser(t, "eve-servers@example.com");
  eveName = ((await (await eve.get("/api/auth/me")).json()) as { user: { username: string } }).user.username;
  expect((await owner.post("/api/orgs", { name: "Acme Inc.", slug: "acme" })).status).toBe(201);
  expect((await eve.post("/api/orgs", { name: "Evil Corp", slug: "evil" })).status).toBe(201);
  await joinOrg(t, owner, "acme", "ben-servers@example.com", ben);
}, 120_000);

afterAll(() => t?.close());

describe("a server registered under an organisation's slug", () => {
  it("is registered by its owner as the organisation's, and shows the organisation as owner", async () => {
    const r = await owner.post("/api/servers", server("acme/weather"));
    expect(r.status, await r.clone().text()).toBe(201);
    const view = (await r.json()) as OwnedServerView;
    expect(view.owner.username).toBe("acme");
    expect(view.owner.org).toEqual({ slug: "acme", name: "Acme Inc." });

    // Its page, signed out: the organisation is the owner.
    const page = await t.app.request("/server/acme/weather");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(ORG_TEXT.ownedBy("Acme Inc."));
    expect(html).not.toContain("Registered by");

    // The organisation's admins see it in its audit log, with the organisation on the row.
    const log = (await (await owner.get("/api/audit?scope=acme&action=server.register")).json()) as AuditPage;
    expect(log.entries.map((e) => [e.org, e.detail])).toEqual([["acme", { qualifiedName: "acme/weather" }]]);
  });

  it("is listed for its members, who may not register under the name or edit it unless the organisation lets them", async () => {
    const listed = (await (await ben.get("/api/servers")).json()) as { data: MyServerView[] };
    expect(listed.data.map((s) => [s.qualifiedName, s.owner.org?.slug, s.manage])).toEqual([["acme/weather", "acme", false]]);
    const mine = (await (await owner.get("/api/servers")).json()) as { data: MyServerView[] };
    expect(mine.data.map((s) => [s.qualifiedName, s.manage])).toEqual([["acme/weather", true]]);
    // His profile lists it, marked as the organisation's, without an Edit he could not use.
    const profile = await (await ben.get("/profile")).text();
    expect(profile).toContain("acme/weather");
    expect(profile).not.toContain("/servers/server/acme/weather/edit");
    expect(await (await owner.get("/profile")).text()).toContain("/servers/server/acme/weather/edit");
    // A member may make a key for it alone (he uses its deployments); someone outside may not.
    expect((await ben.post("/api/auth/apikeys", { name: "weather only", scopes: ["mcp"], resources: ["acme/weather"] })).status).toBe(201);
    const outside = await eve.post("/api/auth/apikeys", { name: "weather only", scopes: ["mcp"], resources: ["acme/weather"] });
    expect(outside.status).toBe(400);
    expect(await errorOf(outside)).toBe(API_KEY_TEXT.unknownResource("acme/weather"));

    const refused = await ben.post("/api/servers", server("acme/radar"));
    expect(refused.status).toBe(403);
    expect(await errorOf(refused)).toBe(SERVER_FORM_TEXT.orgNotAllowed("Acme Inc."));
    const edit = await ben.put("/api/servers/acme/weather", server("acme/weather", "Renamed by Ben"));
    expect(edit.status).toBe(403);
    expect(await errorOf(edit)).toBe(SERVER_FORM_TEXT.orgNotAllowed("Acme Inc."));
    // Deploying it is changing what the organisation owns: refused alike, as the organisation or personally.
    for (const body of [{ owner: "acme" }, {}]) {
      const deploy = await ben.post("/api/deploy/acme/weather", { env: {}, ...body });
      expect(deploy.status, JSON.stringify(body)).toBe(403);
    }

    // The organisation lets its members deploy: then they edit its servers too.
    expect((await owner.put("/api/orgs/acme/settings", { members_deploy: true })).status).toBe(200);
    const saved = await ben.put("/api/servers/acme/weather", server("acme/weather", "Edited by Ben"));
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect(((await saved.json()) as OwnedServerView).displayName).toBe("Edited by Ben");
    expect((await owner.put("/api/orgs/acme/settings", { members_deploy: false })).status).toBe(200);
    const edits = (await (await owner.get("/api/audit?scope=acme&action=server.edit")).json()) as AuditPage;
    expect(edits.entries.map((e) => e.org)).toEqual(["acme"]);
  });

  it("is deployed as the organisation only (what is missing then is its source), never as a person", async () => {
    const r = await owner.post("/api/deploy/acme/weather", { env: {}, owner: "acme" });
    expect(r.status, await r.clone().text()).toBe(400);
    expect(await errorOf(r)).toBe(DEPLOY_TEXT.needsSource);
    // Its figures and its audit log are the organisation's: its owner's own deployment of it is refused in words.
    const personal = await owner.post("/api/deploy/acme/weather", { env: {}, npx_command: "npx -y some-server" });
    expect(personal.status).toBe(403);
    expect(await errorOf(personal)).toBe(ORG_TEXT.deployAsOwner("Acme Inc."));
    // Its page is about the organisation's deployment: no switch to a personal one.
    const page = await (await owner.get("/server/acme/weather")).text();
    expect(page).not.toContain('data-testid="owner-switch"');
  });

  it("refuses someone outside: no name under the organisation, no edit, no deploy, and no word that it exists", async () => {
    for (const qn of ["acme/stolen", "ghost-org/stolen"]) {
      const r = await eve.post("/api/servers", server(qn));
      expect(r.status, qn).toBe(400);
      // The same sentence for an organisation that exists and one that does not.
      expect(await errorOf(r), qn).toBe(SERVER_FORM_TEXT.notYourName(eveName));
    }
    // A slug in another letter case is not a way around it, nor another organisation's slug for its own owner.
    expect((await eve.post("/api/servers", server("ACME/stolen"))).status).toBe(400);
    expect((await owner.post("/api/servers", server("evil/mine"))).status).toBe(400);

    const edit = await eve.put("/api/servers/acme/weather", server("acme/weather", "Defaced"));
    expect(edit.status).toBe(403);
    expect(await errorOf(edit)).toBe(SERVER_FORM_TEXT.notOwner);
    expect((await eve.get("/api/servers/acme/weather")).status).toBe(403);
    expect(((await (await eve.get("/api/servers")).json()) as { data: MyServerView[] }).data).toEqual([]);
    const deploy = await eve.post("/api/deploy/acme/weather", { env: {} });
    expect(deploy.status).toBe(403);
    expect(await errorOf(deploy)).toBe(DEPLOY_TEXT.notOwner);
    // Eve's deploy as Acme: the organisation is not found for her.
    const asAcme = await eve.post("/api/deploy/acme/weather", { env: {}, owner: "acme" });
    expect(asAcme.status).toBe(404);
    expect(await errorOf(asAcme)).toBe(ORG_TEXT.notFound);
    expect(await (await t.app.request("/server/acme/weather")).text()).not.toContain("Defaced");
  });

  it("keeps a person's own servers as they were", async () => {
    const r = await eve.post("/api/servers", server(`${eveName}/tools`, "Eve's tools"));
    expect(r.status, await r.clone().text()).toBe(201);
    const view = (await r.json()) as OwnedServerView;
    expect(view.owner).toEqual({ id: eve.id, username: eveName, org: null });
    const page = await (await t.app.request(`/server/${eveName}/tools`)).text();
    expect(page).toContain("Registered by");
  });
});
