// What an organisation owns (docs/product.md#organisations): a deployment made as the organisation
// by one of its admins, reached by its members with their own keys through the official SDK client,
// refused to a member who may not change it and to everyone outside (not found, as anything of
// another user's), its request log naming the member who called, its audit rows in the
// organisation's log; a member removed loses it at once, open sessions included.
import { describe, expect, it } from "vitest";
import { signedInUser, linkIn, outbox, type Client, type TestApp } from "~support/app.js";
import { waitFor } from "~support/wait.js";
import { deploymentsOf } from "~support/deployments.js";
import { newApiKey, rawSession, sdkClient } from "~support/gateway.js";
import type { AuditPage } from "~/shared/audit.js";
import { DEPLOY_TEXT, type DeploymentView } from "~/shared/deployments.js";
import { ORG_TEXT } from "~/shared/orgs.js";
import type { RequestLogPage } from "~/shared/request-log.js";
import { watchedDeployments } from "../alerts/repo.js";
import { useGatewayApp } from "../gateway/gateway-test-setup.js";
import { MemoryProvider, connectWithOAuth } from "~support/oauth-client.js";
import { NATIVE_REDIRECT, consentQuery, signUpOverHttp } from "~support/oauth.js";

let t: TestApp;
let owner: Client & { id: string };
let personal: DeploymentView;
let repoUrl: string;
let base: string;
useGatewayApp((f) => {
  ({ t, owner, deployment: personal, base } = f);
  repoUrl = f.repo.url;
});

const errorOf = async (r: Response) => ((await r.json()) as { error: string }).error;
const q = (text: string, params: unknown[] = []) => t.db.database.pool.query(text, params);

async function join(slug: string, who: Client & { id: string }, email: string, role: string) {
  const r = await owner.post(`/api/orgs/${slug}/invitations`, { email, role });
  expect(r.status, await r.clone().text()).toBe(201);
  const mail = (await outbox(t.app)).find((m) => m.to === email);
  const id = decodeURIComponent(new URL(linkIn(mail)).pathname.split("/")[2]!);
  expect((await who.post(`/api/invitations/${id}/accept`, {})).status).toBe(200);
}

async function orgDeployment(c: Client, slug: string, status: string): Promise<DeploymentView> {
  let last: DeploymentView | undefined;
  try {
    return await waitFor(
      `${slug}'s deployment ${status}`,
      async () => {
        last = (await deploymentsOf(c, "owner/fixture")).find((d) => d.org?.slug === slug);
        return last?.status === status ? last : undefined;
      },
      60_000,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}: last ${JSON.stringify(last)}`);
  }
}

describe("an organisation's deployment", () => {
  let ben: Client & { id: string };
  let dan: Client & { id: string };
  let eve: Client & { id: string };
  let benKey: string;
  let org: DeploymentView;

  it("is deployed by an admin as the organisation; a member may not, an outsider learns nothing", async () => {
    ben = await signedInUser(t, "ben@example.com");
    dan = await signedInUser(t, "dan@example.com");
    eve = await signedInUser(t, "eve@example.com");
    expect((await owner.post("/api/orgs", { name: "Acme Inc.", slug: "acme" })).status).toBe(201);
    expect((await eve.post("/api/orgs", { name: "Evil Corp", slug: "evil" })).status).toBe(201);
    await join("acme", ben, "ben@example.com", "member");
    await join("acme", dan, "dan@example.com", "member");
    const body = { repositoryUrl: repoUrl, env: {}, owner: "acme" };

    // A member of the organisation: not theirs to deploy for.
    const member = await ben.post("/api/deploy/owner/fixture", body);
    expect(member.status).toBe(403);
    expect(await errorOf(member)).toBe(ORG_TEXT.notAllowedDeploy);
    // Someone outside it gets the answer for one that does not exist: nothing is revealed.
    const answers = [];
    for (const slug of ["acme", "nope", "ACME"]) {
      const r = await eve.post("/api/deploy/owner/fixture", { ...body, owner: slug });
      expect(r.status).toBe(404);
      answers.push(await errorOf(r));
    }
    expect(new Set(answers)).toEqual(new Set([ORG_TEXT.notFound]));

    const r = await owner.post("/api/deploy/owner/fixture", body);
    expect(r.status, await r.clone().text()).toBe(202);
    const info = ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
    expect(info.org).toEqual({ slug: "acme", name: "Acme Inc.", role: "owner", manage: true });
    // Its own address: the owner's personal deployment of the same server keeps its own.
    expect(info.proxy_id).not.toBe(personal.proxy_id);
    org = await orgDeployment(owner, "acme", "running");
    // The organisation's account holds it, not the person who deployed it.
    const row = (await q(`select user_id from deployments where id = $1`, [org.id])).rows[0];
    expect(row.user_id).toMatch(/^org_/);
  }, 90_000);

  it("reaches its members with their own keys through the official SDK client; the request log names the member", async () => {
    benKey = await newApiKey(ben, "laptop");
    const sdk = await sdkClient(org.url, benKey);
    const tools = await sdk.listTools();
    expect(tools.tools.length).toBeGreaterThan(0);
    await sdk.close();
    // Members see it among their deployments, with the organisation named.
    const mine = (await (await ben.get("/api/deployments")).json()) as DeploymentView[];
    expect(mine.find((d) => d.id === org.id)?.org).toEqual({ slug: "acme", name: "Acme Inc.", role: "member", manage: false });
    // The owner's log of it names ben (by username: never a key).
    const log = await waitFor(
      "ben's call in the request log",
      async () => {
        const page = (await (await owner.get(`/api/deployments/${org.id}/requests`)).json()) as RequestLogPage;
        return page.requests.find((x) => x.method === "tools/list");
      },
      10_000,
    );
    expect(log.caller).toBe("ben");
  });

  it("lets a member grant their own OAuth client (the official SDK's flow); removed, the grant opens nothing", async () => {
    const fay = await signUpOverHttp(base, "fay@example.com");
    const invited = await owner.post("/api/orgs/acme/invitations", { email: "fay@example.com", role: "member" });
    expect(invited.status).toBe(201);
    const mail = (await outbox(t.app)).find((m) => m.to === "fay@example.com" && m.subject.startsWith("Join"));
    const id = decodeURIComponent(new URL(linkIn(mail)).pathname.split("/")[2]!);
    expect((await fay.post(`/api/invitations/${id}/accept`)).status).toBe(200);

    const provider = new MemoryProvider({ redirectUri: NATIVE_REDIRECT, clientName: "A member's editor" });
    const approve = async (url: URL) => {
      const a = await fay.navigate(url.href);
      const next = new URL(a.location!, base);
      if (next.pathname !== "/oauth/consent") return next;
      const c = await fay.post("/api/auth/oauth2/consent", { accept: true, oauth_query: consentQuery(a.location!) });
      expect(c.status, c.text).toBe(200);
      return new URL(c.location ?? c.json<{ url?: string; redirect_uri?: string }>().url ?? "");
    };
    const client = await connectWithOAuth(org.url, provider, approve, `${base}/api/auth`);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
    const token = provider.stored!.access_token;
    const init = (bearerToken: string) =>
      fetch(org.url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${bearerToken}`,
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
        }),
      });
    expect((await init(token)).status).toBe(200);
    // Someone outside the organisation cannot grant a client access to it at all.
    const gus = await signUpOverHttp(base, "gus@example.com");
    const theirs = new MemoryProvider({ redirectUri: NATIVE_REDIRECT, clientName: "An outsider's editor" });
    const refuse = async (url: URL) => {
      const a = await gus.navigate(url.href);
      const c = await gus.post("/api/auth/oauth2/consent", { accept: true, oauth_query: consentQuery(a.location!) });
      expect(c.status).toBe(403);
      throw new Error("refused");
    };
    await expect(connectWithOAuth(org.url, theirs, refuse, `${base}/api/auth`)).rejects.toThrow("refused");

    // Removed: the member's grant no longer opens the deployment.
    const detail = (await (await owner.get("/api/orgs/acme")).json()) as { members_list: { id: string; username: string }[] };
    const m = detail.members_list.find((x) => x.username === "fay")!;
    expect((await owner.del(`/api/orgs/acme/members/${m.id}`)).status).toBe(200);
    expect((await init(token)).status).toBe(401);
  });

  it("refuses a member's changes and everyone outside; an outsider's key reaches nothing of it", async () => {
    const stop = await ben.del(`/api/deployments/${org.id}`);
    expect(stop.status).toBe(403);
    expect(await errorOf(stop)).toBe(ORG_TEXT.notAllowedDeploy);
    expect((await ben.post(`/api/deployments/${org.id}/restart`, {})).status).toBe(403);
    // The request log names members: the organisation's admins read it, its members do not.
    expect((await ben.get(`/api/deployments/${org.id}/requests`)).status).toBe(404);
    // Another organisation's member and an outsider: the same answers as for a deployment that does not exist.
    for (const path of [`/api/deployments/${org.id}/logs`, `/api/deployments/${org.id}/requests`, `/api/deployments/${org.id}/alerts`]) {
      const r = await eve.get(path);
      expect(r.status, path).toBe(404);
    }
    const del = await eve.del(`/api/deployments/${org.id}`);
    expect(del.status).toBe(404);
    expect(await errorOf(del)).toBe(DEPLOY_TEXT.notFound);
    expect((await (await eve.get("/api/deployments")).json()) as DeploymentView[]).toEqual([]);
    const eveKey = await newApiKey(eve, "probe");
    await expect(sdkClient(org.url, eveKey)).rejects.toThrow();
    // A member's key does not reach the owner's personal deployment.
    await expect(sdkClient(personal.url, benKey)).rejects.toThrow();
  });

  it("lets members change its deployments only where the organisation says so (its admins decide)", async () => {
    // A member may not turn it on for themselves.
    const self = await ben.put("/api/orgs/acme/settings", { members_deploy: true });
    expect(self.status).toBe(403);
    expect((await eve.put("/api/orgs/acme/settings", { members_deploy: true })).status).toBe(404);
    expect((await owner.put("/api/orgs/acme/settings", { members_deploy: "yes" })).status).toBe(400);
    expect((await owner.put("/api/orgs/acme/settings", { members_deploy: true })).status).toBe(200);
    expect(((await (await ben.get("/api/orgs/acme")).json()) as { members_deploy: boolean }).members_deploy).toBe(true);
    const mine = (await (await ben.get("/api/deployments")).json()) as DeploymentView[];
    expect(mine.find((d) => d.id === org.id)?.org).toEqual({ slug: "acme", name: "Acme Inc.", role: "member", manage: true });
    // Now a member restarts it (the same row, the same URL) ...
    const restart = await ben.post(`/api/deployments/${org.id}/restart`, {});
    expect(restart.status, await restart.clone().text()).toBe(202);
    org = await orgDeployment(owner, "acme", "running");
    // Answering again (the gateway has seen it start) before the next steps use it.
    await waitFor(
      "the restarted deployment to answer",
      async () => ((await rawSession(org.url, benKey).catch(() => undefined)) ? true : undefined),
      30_000,
    );
    // ... and off again, at once: the next change is refused.
    expect((await owner.put("/api/orgs/acme/settings", { members_deploy: false })).status).toBe(200);
    expect((await ben.post(`/api/deployments/${org.id}/restart`, {})).status).toBe(403);
    const log = (await (await owner.get("/api/audit?scope=acme&action=org.settings")).json()) as AuditPage;
    expect(log.entries.map((e) => e.detail)).toEqual([{ members_deploy: false }, { members_deploy: true }]);
    const restarted = (await (await owner.get("/api/audit?scope=acme&action=deployment.restart")).json()) as AuditPage;
    expect(restarted.entries[0]).toMatchObject({ actor: "ben", org: "acme" });
  }, 90_000);

  it("writes the organisation's audit log: the deploy, with the keys' names and who did it", async () => {
    const page = (await (await owner.get("/api/audit?scope=acme&action=deployment.deploy")).json()) as AuditPage;
    expect(page.entries[0]).toMatchObject({ action: "deployment.deploy", actor: "owner", org: "acme" });
    // Its members do not read the organisation's log.
    expect((await ben.get("/api/audit?scope=acme")).status).toBe(403);
  });

  it("a member removed loses it at once: their open session ends and their key is refused", async () => {
    const s = await rawSession(org.url, benKey);
    expect((await s.call(2, "tools/list")).status).toBe(200);
    const dans = await rawSession(org.url, await newApiKey(dan, "desk"));
    const detail = (await (await owner.get("/api/orgs/acme")).json()) as { members_list: { id: string; username: string }[] };
    const benMember = detail.members_list.find((m) => m.username === "ben")!;
    expect((await owner.del(`/api/orgs/acme/members/${benMember.id}`)).status).toBe(200);
    // Within the revocation's round trip: the session is gone, not merely refused later.
    await waitFor("ben's session to end", async () => ((await s.call(3, "tools/list")).status === 404 ? true : undefined), 5000);
    await expect(sdkClient(org.url, benKey)).rejects.toThrow();
    expect(((await (await ben.get("/api/deployments")).json()) as DeploymentView[]).find((d) => d.id === org.id)).toBeUndefined();
    // The member who stays keeps theirs.
    expect((await dans.call(4, "tools/list")).status).toBe(200);
  });

  it("has a plan of its own, which only its owners buy: the organisation's deployments get Pro, its owner's own do not", async () => {
    const detail = (await (await owner.get("/api/orgs/acme")).json()) as { members_list: { id: string; username: string }[] };
    const danMember = detail.members_list.find((m) => m.username === "dan")!;
    expect((await owner.put(`/api/orgs/acme/members/${danMember.id}/role`, { role: "admin" })).status).toBe(200);
    const pro = { plan: "pro", period: "monthly" };
    // An admin manages members and deployments, not the bill; an outsider learns nothing.
    const admin = await dan.post("/api/subscriptions/checkout?org=acme", pro);
    expect(admin.status).toBe(403);
    expect(await errorOf(admin)).toBe(ORG_TEXT.ownersPay);
    expect((await eve.post("/api/subscriptions/checkout?org=acme", pro)).status).toBe(404);
    expect((await eve.get("/api/subscriptions/current?org=acme")).status).toBe(404);

    const r = await owner.post("/api/subscriptions/checkout?org=acme", pro);
    expect(r.status, await r.clone().text()).toBe(200);
    const id = new URL(((await r.json()) as { url: string }).url).pathname.split("/").pop()!;
    // The checkout's link, in anyone else's hands (an admin's too), opens nothing.
    for (const c of [dan, eve]) {
      expect((await c.get(`/api/subscriptions/test-checkout/${id}`)).status).toBe(404);
      expect((await c.post(`/api/subscriptions/test-checkout/${id}/confirm`, {})).status).toBe(404);
    }
    const paid = await owner.post(`/api/subscriptions/test-checkout/${id}/confirm`, {});
    expect(paid.status).toBe(200);
    expect(((await paid.json()) as { url: string }).url).toBe("/orgs/acme?checkout_success=true");
    expect(((await (await owner.get("/api/subscriptions/current?org=acme")).json()) as { plan: string }).plan).toBe("pro");
    expect(((await (await owner.get("/api/subscriptions/current")).json()) as { plan: string }).plan).toBe("free");
    // Keeping awake is Pro's: the organisation's deployment may, the owner's personal one may not.
    expect((await owner.put(`/api/deployments/${org.id}/sleep`, { keep_awake: true })).status).toBe(200);
    expect((await owner.put(`/api/deployments/${personal.id}/sleep`, { keep_awake: true })).status).toBe(403);
    const log = (await (await owner.get("/api/audit?scope=acme&action=plan.*")).json()) as AuditPage;
    expect(log.entries.map((e) => e.action)).toContain("plan.checkout");
    // Its alerts are Pro's too, and go to its owners (its account has no mailbox).
    expect((await owner.get(`/api/deployments/${org.id}/alerts`)).status).toBe(200);
    const row = (await q(`select user_id from deployments where id = $1`, [org.id])).rows[0].user_id as string;
    const [watched] = await watchedDeployments(t.db.database.db, [row]);
    expect(watched?.ownerEmail).toBe("owner@example.com");
  });

  it("is counted by the organisation's plan, not the person's; the organisation is deleted only once it is stopped", async () => {
    const plan = await q(`select count(*)::int as n from deployments where user_id = $1 and status not in ('failed','stopped')`, [
      owner.id,
    ]);
    expect(plan.rows[0].n).toBe(1); // the personal one only
    const refused = await owner.del("/api/orgs/acme");
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toBe(ORG_TEXT.hasDeployments(1));
    expect((await owner.del(`/api/deployments/${org.id}`)).status).toBe(200);
    expect((await owner.del("/api/orgs/acme")).status).toBe(200);
    // Its account goes with it; the stop is in the audit log the site's admins keep.
    expect((await q(`select count(*)::int as n from "user" where id like 'org_%' and name = 'Acme Inc.'`)).rows[0].n).toBe(0);
    const audit = await q(`select action from audit_log where action = 'deployment.stop' and org_id is not null`);
    expect(audit.rows.length).toBe(1);
  });
});
