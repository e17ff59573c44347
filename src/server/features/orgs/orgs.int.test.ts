// Organisations, members and invitations (docs/product.md#organisations), tried as the people in
// them would and as someone who should not get in: a replayed or forwarded invitation, an expired
// or revoked one, a member reaching for an admin's actions, an outsider guessing a slug, the last
// owner stepping down, the plugin's own endpoints called directly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, createTestApp, linkIn, outbox, signedInUser, type Client, type TestApp } from "~support/app.js";
import { AUDIT_TEXT, type AuditPage } from "~/shared/audit.js";
import { ORG_TEXT, type InvitationInfo, type OrgDetail, type OrgView } from "~/shared/orgs.js";
import { trimAudit } from "../audit/repo.js";

let t: TestApp;
let ann: Client & { id: string };
let ben: Client & { id: string };
let cat: Client & { id: string };
let eve: Client & { id: string };
beforeAll(async () => {
  t = await createTestApp({ ADMIN_EMAILS: "root@example.com" });
  ann = await signedInUser(t, "ann@example.com");
  ben = await signedInUser(t, "ben@example.com");
  cat = await signedInUser(t, "cat@example.com");
  eve = await signedInUser(t, "eve@example.com");
});
afterAll(() => t.close());

const q = (sql: string, params: unknown[] = []) => t.db.database.pool.query(sql, params);
const errorOf = async (r: Response) => ((await r.json()) as { error: string }).error;

async function invite(by: Client, slug: string, email: string, role = "member"): Promise<string> {
  const r = await by.post(`/api/orgs/${slug}/invitations`, { email, role });
  expect(r.status, await r.clone().text()).toBe(201);
  // The outbox lists the newest first.
  const mail = (await outbox(t.app)).find((m) => m.to === email);
  expect(mail?.subject).toMatch(/^Join /);
  const link = new URL(linkIn(mail));
  expect(link.pathname).toMatch(/^\/invitations\//);
  return decodeURIComponent(link.pathname.split("/")[2]!);
}

async function members(by: Client, slug: string) {
  const r = await by.get(`/api/orgs/${slug}`);
  expect(r.status).toBe(200);
  return ((await r.json()) as OrgDetail).members_list;
}

describe("organisations", () => {
  it("anyone signed in creates one and becomes its owner; the audit log says so", async () => {
    const r = await ann.post("/api/orgs", { name: "Acme Inc.", slug: "acme" });
    expect(r.status, await r.clone().text()).toBe(201);
    expect(await r.json()).toMatchObject({ name: "Acme Inc.", slug: "acme", role: "owner", members: 1 });
    const mine = (await (await ann.get("/api/orgs")).json()) as OrgView[];
    expect(mine.map((o) => o.slug)).toEqual(["acme"]);
    const log = (await (await ann.get("/api/audit?scope=acme")).json()) as AuditPage;
    expect(log.entries[0]).toMatchObject({ action: "org.create", actor: "ann", org: "acme", target: "acme" });
  });

  it("shares one namespace with usernames, both ways, and checks the slug's form", async () => {
    const taken = await ben.post("/api/orgs", { name: "Ann", slug: "ann" });
    expect(taken.status).toBe(409);
    expect(await errorOf(taken)).toBe(ORG_TEXT.slugTaken);
    const again = await ben.post("/api/orgs", { name: "Acme two", slug: "acme" });
    expect(again.status).toBe(409);
    expect(await errorOf(again)).toBe(ORG_TEXT.slugTaken);
    const bad = await ben.post("/api/orgs", { name: "Bad", slug: "Bad Slug!" });
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toBe(ORG_TEXT.slugFormat);
    const rename = await ben.put(`/api/users/${ben.id}`, { username: "ACME" });
    expect(rename.status).toBe(409);
  });

  it("is reachable only through Switchboard's routes, not the plugin's own endpoints", async () => {
    for (const path of [
      "/api/auth/organization/create",
      "/api/auth//organization/create",
      "/api/auth/%6Frganization/create",
      "/api/auth/ORGANIZATION/list",
    ]) {
      const r = await eve.post(path, { name: "Sneaky", slug: "sneaky" });
      expect(r.status, path).toBe(404);
    }
    expect((await q(`select count(*)::int as n from organization where slug = 'sneaky'`)).rows[0].n).toBe(0);
  });
});

describe("invitations", () => {
  let benInvite: string;
  it("an admin invites by e-mail; the recipient sees who invited them to what before accepting", async () => {
    benInvite = await invite(ann, "acme", "ben@example.com", "admin");
    const r = await ben.get(`/api/invitations/${benInvite}`);
    const info = (await r.json()) as InvitationInfo;
    expect(info).toMatchObject({ org: { name: "Acme Inc.", slug: "acme" }, email: "ben@example.com", role: "admin", valid: true });
  });

  it("refuses another address holding the link, and says only a masked address", async () => {
    const r = await eve.post(`/api/invitations/${benInvite}/accept`);
    expect(r.status).toBe(403);
    expect(await errorOf(r)).toBe(ORG_TEXT.invitationOther("b•••@example.com"));
    expect(((await (await eve.get(`/api/invitations/${benInvite}`)).json()) as InvitationInfo).email).toBe("b•••@example.com");
    const detail = await eve.get("/api/orgs/acme");
    expect(detail.status).toBe(404);
  });

  it("is accepted once by its recipient; a replay is refused", async () => {
    const r = await ben.post(`/api/invitations/${benInvite}/accept`);
    expect(r.status, await r.clone().text()).toBe(200);
    expect((await r.json()).message).toBe(ORG_TEXT.accepted("Acme Inc."));
    const replay = await ben.post(`/api/invitations/${benInvite}/accept`);
    expect(replay.status).toBe(404);
    expect(await errorOf(replay)).toBe(ORG_TEXT.invitationGone);
    expect((await members(ann, "acme")).map((m) => [m.username, m.role])).toEqual([
      ["ann", "owner"],
      ["ben", "admin"],
    ]);
  });

  it("stops working when revoked or expired; a revoked one cannot be revoked again", async () => {
    const id = await invite(ben, "acme", "cat@example.com");
    const revoke = await ben.del(`/api/orgs/acme/invitations/${id}`);
    expect(revoke.status).toBe(200);
    expect((await cat.post(`/api/invitations/${id}/accept`)).status).toBe(404);
    expect((await ben.del(`/api/orgs/acme/invitations/${id}`)).status).toBe(404);
    const later = await invite(ben, "acme", "cat@example.com");
    await q(`update invitation set expires_at = now() - interval '1 minute' where id = $1`, [later]);
    const expired = await cat.post(`/api/invitations/${later}/accept`);
    expect(expired.status).toBe(404);
    expect(await errorOf(expired)).toBe(ORG_TEXT.invitationGone);
    expect((await cat.post(`/api/invitations/${later}/decline`)).status).toBe(404);
    expect(((await (await cat.get(`/api/invitations/${later}`)).json()) as InvitationInfo).valid).toBe(false);
  });

  it("an admin renames it; the slug stays; a bad name is refused in words", async () => {
    expect((await ben.put("/api/orgs/acme", { name: "Acme Corporation" })).status).toBe(200);
    expect(((await (await ann.get("/api/orgs/acme")).json()) as OrgDetail).name).toBe("Acme Corporation");
    const bad = await ben.put("/api/orgs/acme", { name: "" });
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toBe(ORG_TEXT.nameRequired);
    expect((await eve.put("/api/orgs/acme", { name: "Mine now" })).status).toBe(404);
    expect((await ben.put("/api/orgs/acme", { name: "Acme Inc." })).status).toBe(200);
    const log = (await (await ann.get("/api/audit?scope=acme&action=org.rename")).json()) as AuditPage;
    expect(log.entries.map((e) => e.detail)).toEqual([
      { from: "Acme Corporation", to: "Acme Inc." },
      { from: "Acme Inc.", to: "Acme Corporation" },
    ]);
  });

  it("a member neither invites, nor sees invitations, nor manages members", async () => {
    const id = await invite(ann, "acme", "cat@example.com");
    expect((await cat.post(`/api/invitations/${id}/accept`)).status).toBe(200);
    const r = await cat.post("/api/orgs/acme/invitations", { email: "eve@example.com", role: "member" });
    expect(r.status).toBe(403);
    expect(await errorOf(r)).toBe(ORG_TEXT.notAllowed);
    const detail = (await (await cat.get("/api/orgs/acme")).json()) as OrgDetail;
    expect(detail.role).toBe("member");
    expect(detail.invitations).toEqual([]);
    // Other members' addresses are for those who manage members.
    expect(detail.members_list.find((m) => m.username === "ann")?.email).toBe("");
    const benMember = detail.members_list.find((m) => m.username === "ben")!;
    expect((await cat.del(`/api/orgs/acme/members/${benMember.id}`)).status).toBe(403);
    expect((await cat.put(`/api/orgs/acme/members/${benMember.id}/role`, { role: "member" })).status).toBe(403);
    // An admin may not make owners.
    const owner = await ben.post("/api/orgs/acme/invitations", { email: "eve@example.com", role: "owner" });
    expect(owner.status).toBe(403);
  });
});

describe("members and owners", () => {
  it("the last owner can neither leave nor step down; an outsider sees nothing", async () => {
    const leave = await ann.post("/api/orgs/acme/leave");
    expect(leave.status).toBe(409);
    expect(await errorOf(leave)).toBe(ORG_TEXT.lastOwner);
    const annMember = (await members(ann, "acme")).find((m) => m.username === "ann")!;
    const down = await ann.put(`/api/orgs/acme/members/${annMember.id}/role`, { role: "admin" });
    expect(down.status).toBe(409);
    for (const [m, p] of [
      ["GET", "/api/orgs/acme"],
      ["POST", "/api/orgs/acme/leave"],
      ["DELETE", "/api/orgs/acme"],
    ] as const) {
      const r = m === "GET" ? await eve.get(p) : m === "POST" ? await eve.post(p) : await eve.del(p);
      expect(r.status, `${m} ${p}`).toBe(404);
    }
    const log = await eve.get("/api/audit?scope=acme");
    expect(log.status).toBe(404);
  });

  it("keeps an owner even when two owners step down at once", async () => {
    const annMember = (await members(ann, "acme")).find((m) => m.username === "ann")!;
    const benMember = (await members(ann, "acme")).find((m) => m.username === "ben")!;
    expect((await ann.put(`/api/orgs/acme/members/${benMember.id}/role`, { role: "owner" })).status).toBe(200);
    const [a, b] = await Promise.all([
      ann.put(`/api/orgs/acme/members/${annMember.id}/role`, { role: "admin" }),
      ben.put(`/api/orgs/acme/members/${benMember.id}/role`, { role: "admin" }),
    ]);
    expect([a.status, b.status].sort()).toContain(200);
    const owners = (
      await q(
        `select count(*)::int as n from member m join organization o on o.id = m.organization_id where o.slug = 'acme' and m.role = 'owner'`,
      )
    ).rows[0].n;
    expect(owners).toBeGreaterThanOrEqual(1);
  });

  it("an admin removes a member: their access ends at once, and it is in the log", async () => {
    const owners = await members(ann, "acme");
    const boss = owners.find((m) => m.role === "owner")!.username === "ann" ? ann : ben;
    const catMember = owners.find((m) => m.username === "cat")!;
    const r = await boss.del(`/api/orgs/acme/members/${catMember.id}`);
    expect(r.status).toBe(200);
    expect((await cat.get("/api/orgs/acme")).status).toBe(404);
    expect((await (await cat.get("/api/orgs")).json()) as OrgView[]).toEqual([]);
    const log = (await (await boss.get("/api/audit?scope=acme&action=member.*")).json()) as AuditPage;
    expect(log.entries.map((e) => e.action)).toEqual(
      expect.arrayContaining(["member.remove", "member.join", "member.invite", "member.invitation_revoke", "member.role_change"]),
    );
    expect(log.entries.find((e) => e.action === "member.remove")).toMatchObject({
      target: "cat",
      detail: { user_id: cat.id, role: "member" },
    });
    // An invitation's id opens it: never in the log.
    const ids = (await q(`select id from invitation`)).rows.map((r) => r.id as string);
    const all = JSON.stringify((await q(`select * from audit_log`)).rows);
    for (const id of ids) expect(all).not.toContain(id);
  });

  it("an account that alone owns an organisation with others in it cannot be deleted until it hands over", async () => {
    const solo = await signedInUser(t, "solo@example.com");
    expect((await solo.post("/api/orgs", { name: "Solo", slug: "solo-co" })).status).toBe(201);
    const id = await invite(solo, "solo-co", "eve@example.com");
    expect((await eve.post(`/api/invitations/${id}/accept`)).status).toBe(200);
    const r = await solo.del(`/api/users/${solo.id}`, { confirmEmail: "solo@example.com" });
    expect(r.status).toBe(409);
    expect(await errorOf(r)).toBe(ORG_TEXT.stillOwner("Solo"));
    expect((await eve.get("/api/orgs/solo-co")).status).toBe(200);
  });
});

describe("the audit log", () => {
  it("is append-only: the database refuses changes and deletions, but for the retention trim", async () => {
    await expect(q(`update audit_log set action = 'nothing'`)).rejects.toThrow(/append-only/);
    await expect(q(`delete from audit_log`)).rejects.toThrow(/append-only/);
    await expect(q(`truncate audit_log`)).rejects.toThrow(/append-only/);
    const before = (await q(`select count(*)::int as n from audit_log`)).rows[0].n;
    expect(before).toBeGreaterThan(5);
    expect(await trimAudit(t.db.database.db, { days: 90 })).toBe(0);
    expect((await q(`select count(*)::int as n from audit_log`)).rows[0].n).toBe(before);
    // Past retention: a Free owner's entry goes after 90 days, a Pro owner's stays for 365.
    await q(
      `insert into audit_log (at, actor_id, actor_name, action) values (now() - interval '100 days', $1, 'ben', 'old.free'), (now() - interval '100 days', $2, 'ann', 'old.pro')`,
      [ben.id, ann.id],
    );
    expect(await trimAudit(t.db.database.db, { days: 90, proDays: 365, pro: [ann.id] })).toBe(1);
    expect((await q(`select action from audit_log where action like 'old.%'`)).rows.map((r) => r.action)).toEqual(["old.pro"]);
  });

  it("shows each person their own actions, an organisation's to its admins, everything to the site's admins", async () => {
    const own = (await (await cat.get("/api/audit")).json()) as AuditPage;
    expect(own.entries.length).toBeGreaterThan(0);
    expect(own.entries.every((e) => e.actor_id === cat.id)).toBe(true);
    const forbidden = await cat.get("/api/audit?scope=all");
    expect(forbidden.status).toBe(403);
    const root = await signedInUser(t, "root@example.com");
    const all = (await (await root.get("/api/audit?scope=all&limit=200")).json()) as AuditPage;
    expect(new Set(all.entries.map((e) => e.actor))).toEqual(expect.objectContaining({}));
    expect(all.entries.some((e) => e.actor === "ann") && all.entries.some((e) => e.actor === "cat")).toBe(true);
    // A cursor past any id is refused as input, never a database error.
    expect((await root.get("/api/audit?before=100000000000000000000")).status).toBe(400);
    expect((await root.get("/api/audit?limit=100000")).status).toBe(400);
    const bad = await root.get("/api/audit?from=yesterday");
    expect(bad.status).toBe(400);
    expect(await errorOf(bad)).toBe(AUDIT_TEXT.dateInvalid);
  });

  it("pages back through older entries and exports CSV and JSON Lines, formulas defused", async () => {
    const first = (await (await ann.get("/api/audit?scope=acme&limit=2")).json()) as AuditPage;
    expect(first.entries).toHaveLength(2);
    expect(first.next).not.toBeNull();
    const second = (await (await ann.get(`/api/audit?scope=acme&limit=2&before=${first.next}`)).json()) as AuditPage;
    expect(second.entries[0]!.id).toBeLessThan(first.entries[1]!.id);
    // A name chosen to run in a spreadsheet
    expect((await ann.post("/api/orgs", { name: '=HYPERLINK("http://x")', slug: "formula" })).status).toBe(201);
    const csv = await ann.get("/api/audit?format=csv");
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toMatch(/attachment; filename="audit-mine-\d{4}-\d{2}-\d{2}\.csv"/);
    const text = await csv.text();
    expect(text.split("\r\n")[0]).toBe("id,at,actor,via,org,action,target_kind,target,ip,detail");
    expect(text).toContain("org.create");
    expect(text).not.toMatch(/(^|,)=HYPERLINK/m);
    const jsonl = await ann.get("/api/audit?format=jsonl&action=org.create");
    const lines = (await jsonl.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { action: string });
    expect(lines.length).toBe(2);
    expect(lines.every((l) => l.action === "org.create")).toBe(true);
  });

  it("names key names, never their values", async () => {
    const r = await ann.post("/api/auth/apikeys", { name: "ci-key" });
    expect(r.status).toBe(201);
    const { apiKey } = (await r.json()) as { apiKey: string };
    const rows = (await q(`select * from audit_log where action = 'api_key.create'`)).rows;
    expect(rows.at(-1)).toMatchObject({ actor_name: "ann", detail: { name: "ci-key" } });
    expect(JSON.stringify(rows)).not.toContain(apiKey);
  });
});

describe("deleting an organisation", () => {
  it("is for owners; its members lose it and its name is free again", async () => {
    const benMember = (await members(ann, "acme")).find((m) => m.username === "ben")!;
    if (benMember.role === "owner") {
      const annMember = (await members(ben, "acme")).find((m) => m.username === "ann")!;
      await ben.put(`/api/orgs/acme/members/${annMember.id}/role`, { role: "owner" });
      await ann.put(`/api/orgs/acme/members/${benMember.id}/role`, { role: "admin" });
    }
    expect((await ben.del("/api/orgs/acme")).status).toBe(403);
    const r = await ann.del("/api/orgs/acme");
    expect(r.status).toBe(200);
    expect((await ben.get("/api/orgs/acme")).status).toBe(404);
    const fresh = client(t.app, new URL(t.config.PUBLIC_URL).origin);
    expect((await fresh.get("/api/orgs")).status).toBe(401);
    expect((await q(`select count(*)::int as n from audit_log where action = 'org.delete'`)).rows[0].n).toBe(1);
  });
});

describe("the pages' forms, without JavaScript", () => {
  /** A form post as a browser without scripts sends it, with the person's cookies. */
  const form = (c: Client, path: string, fields: Record<string, string>) =>
    t.app.request(`${new URL(t.config.PUBLIC_URL).origin}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: new URL(t.config.PUBLIC_URL).origin, cookie: c.jar.header() },
      body: new URLSearchParams(fields).toString(),
      redirect: "manual",
    });

  it("create an organisation, invite, accept and remove, each answered with a redirect", async () => {
    const made = await form(ann, "/orgs", { name: "No Script Co", slug: "noscript" });
    expect(made.status).toBe(302);
    expect(made.headers.get("location")).toBe("/orgs/noscript");
    const invited = await form(ann, "/orgs/noscript", { intent: "invite", email: "cat@example.com", role: "member" });
    expect(invited.status).toBe(303);
    const id = decodeURIComponent(new URL(linkIn((await outbox(t.app)).find((m) => m.to === "cat@example.com"))).pathname.split("/")[2]!);
    // Someone else's post with the link is refused in words, and nothing changes
    const wrong = await form(eve, `/invitations/${id}`, { intent: "accept" });
    expect(wrong.status).toBe(200);
    expect(await wrong.text()).toContain("it cannot be accepted from another account");
    const joined = await form(cat, `/invitations/${id}`, { intent: "accept" });
    expect(joined.status).toBe(302);
    expect(joined.headers.get("location")).toBe("/orgs/noscript");
    const catMember = (await members(ann, "noscript")).find((m) => m.username === "cat")!;
    expect((await form(ann, "/orgs/noscript", { intent: "remove", id: catMember.id })).status).toBe(303);
    expect((await cat.get("/api/orgs/noscript")).status).toBe(404);
    const gone = await form(ann, "/orgs/noscript", { intent: "delete" });
    expect(gone.headers.get("location")).toBe("/orgs");
  });
});
