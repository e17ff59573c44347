import fs from "node:fs/promises";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { describe, expect, inject, it } from "vitest";
import { ADMIN_TEXT, MY_SUBMISSIONS_TEXT, REJECTION_MAIL_TEXT } from "~/shared/catalog.js";
import { CONNECTION_TEXT } from "~/shared/connections.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { DOMAIN_TEXT } from "~/shared/domains.js";
import { API_KEY_TEXT } from "~/shared/publishers.js";
import { TOOLSET_TEXT, type ToolsetView } from "~/shared/toolsets.js";
import { mailsTo } from "../support/smtp-sink.js";
import { E2E_REMOTE_HOST } from "../support/remote-upstreams.js";
import { browserWithFixtureRepo, newPage, problemsOf } from "./browser.js";
import { confirmDialog, generateKey, registerConfirmAndLogIn, registerOwnedServer, subscribeToPro } from "./helpers.js";

// Every destructive action asks first, saying what stops working (issue 52, item 1): Stop Server
// (a server's page, My deployments), a toolset's Remove and the removal of its members, a
// connection's Remove, a custom domain's Remove, an API key's Revoke and an admin's Reject (with
// an optional reason the submitter reads on My submissions and by e-mail). With scripts the
// question is a dialog; without them it unfolds in place. Cancel does nothing; Confirm does it.

const env = browserWithFixtureRepo();
const PASSWORD = "confirm-password-1";
const WIDE = { width: 1280, height: 900 };

type Answer = { status: number; json: unknown };
const api = (page: Page, method: string, path: string, body?: unknown): Promise<Answer> =>
  page.evaluate(
    async ({ method, path, body }) => {
      const r = await fetch(path, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: r.status, json: await r.json().catch(() => null) };
    },
    { method, path, body },
  );
const deployments = async (page: Page) => (await api(page, "GET", "/api/deployments")).json as { id: string; server_id: string }[];
const toolset = async (page: Page, name: string) =>
  ((await api(page, "GET", "/api/toolsets")).json as ToolsetView[]).find((t) => t.name === name);

/** The page at 1280 px and at 390 px, as it is now (a question open), for a person to look at. */
async function shoot(page: Page, name: string, shown?: Locator) {
  await fs.mkdir("/tmp/shots", { recursive: true });
  await shown?.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `/tmp/shots/${name}-1280.png` });
  await page.setViewportSize({ width: 390, height: 844 });
  await shown?.scrollIntoViewIfNeeded();
  await page.screenshot({ path: `/tmp/shots/${name}-390.png` });
  await page.setViewportSize(WIDE);
}

/** With scripts: the dialog is named by its question, says `text`, and Cancel closes it. */
async function askedAndCancelled(page: Page, title: string, text: string, shot?: string) {
  const ask = page.getByRole("alertdialog", { name: title });
  await ask.getByText(text, { exact: true }).waitFor();
  if (shot) await shoot(page, shot);
  await ask.getByRole("button", { name: "Cancel" }).click();
  await ask.waitFor({ state: "detached" });
}

/** Without scripts: the summary unfolds the question in place; it says `text`. */
async function unfolded(page: Page, where: Locator, summary: string | RegExp, title: string, text: string, shot?: string) {
  await where.locator("summary", { hasText: summary }).click();
  const ask = where.getByRole("group", { name: title });
  await ask.getByText(text, { exact: true }).waitFor();
  if (shot) await shoot(page, shot, ask);
  return ask;
}

/** A signed-in Pro user with two deployments of the fixture server, a toolset of both, a connection and a pending custom domain. */
async function setUp(page: Page, who: string) {
  await registerConfirmAndLogIn(page, `${who}-${Date.now()}@example.com`, PASSWORD);
  await subscribeToPro(page);
  await page.goto("/");
  const a = await registerOwnedServer(page, `${who}-a`, env.repo.url);
  const b = await registerOwnedServer(page, `${who}-b`, env.repo.url);
  const mine = await deployments(page);
  const idOf = (qn: string) => mine.find((d) => d.server_id === qn)!.id;
  const set = await api(page, "POST", "/api/toolsets", {
    name: `${who}-set`,
    members: [{ deployment_id: idOf(a) }, { deployment_id: idOf(b) }],
  });
  expect(set.status, JSON.stringify(set.json)).toBe(202);
  // Nothing answers there: the connection exists (and fails to connect), which is all Remove needs.
  const conn = await api(page, "POST", "/api/connections", { name: `${who}-remote`, url: `http://${E2E_REMOTE_HOST}:7899/mcp` });
  expect(conn.status, JSON.stringify(conn.json)).toBe(202);
  const domain = `${who}-${Date.now()}.example.test`;
  const dom = await api(page, "POST", `/api/deployments/${idOf(a)}/domains`, { domain });
  expect(dom.status, JSON.stringify(dom.json)).toBe(201);
  return { a, b, set: `${who}-set`, remote: `${who}-remote`, domain };
}

async function withoutScripts(signedIn: BrowserContext) {
  const opened = await newPage(env.browser, { javaScriptEnabled: false, viewport: WIDE });
  await opened.context.addCookies(await signedIn.cookies());
  return opened;
}

describe("destructive actions ask first", () => {
  it("with scripts: each asks in a dialog saying what stops working; Cancel does nothing, Confirm does it", async () => {
    const { page } = await newPage(env.browser, { viewport: WIDE });
    const problems = problemsOf(page);
    const s = await setUp(page, "confirm-js");

    // A toolset's members: unticking one and saving asks first.
    await page.goto(`/toolsets/${s.set}`);
    const members = page.getByRole("region", { name: TOOLSET_TEXT.membersTitle });
    const bName = (await toolset(page, s.set))!.members.find((m) => m.name.endsWith("-b"))!.name;
    await members.getByRole("checkbox", { name: s.b }).uncheck();
    await members.getByRole("button", { name: TOOLSET_TEXT.save }).click();
    await askedAndCancelled(page, TOOLSET_TEXT.removeMembersTitle(1), TOOLSET_TEXT.removeMembersText([bName]), "members-dialog");
    expect((await toolset(page, s.set))!.members).toHaveLength(2);
    await members.getByRole("button", { name: TOOLSET_TEXT.save }).click();
    await confirmDialog(page, TOOLSET_TEXT.removeMembersConfirm);
    await members.getByText(TOOLSET_TEXT.saved).waitFor();
    expect((await toolset(page, s.set))!.members.map((m) => m.name)).not.toContain(bName);

    // The toolset itself.
    await page.goto("/toolsets");
    const row = page.getByTestId("toolset").filter({ hasText: s.set });
    await row.getByRole("button", { name: `${TOOLSET_TEXT.remove} ${s.set}` }).click();
    await askedAndCancelled(page, TOOLSET_TEXT.removeTitle(s.set), TOOLSET_TEXT.removeText, "toolset-dialog");
    expect(await toolset(page, s.set)).toBeDefined();
    await row.getByRole("button", { name: `${TOOLSET_TEXT.remove} ${s.set}` }).click();
    await confirmDialog(page, TOOLSET_TEXT.remove);
    await page.getByText(TOOLSET_TEXT.none).waitFor();
    expect(await toolset(page, s.set)).toBeUndefined();

    // A custom domain, then Stop Server on the server's page.
    await page.goto(`/server/${s.a}`);
    const item = page.getByTestId("domain");
    await item.getByRole("button", { name: `${DOMAIN_TEXT.remove} ${s.domain}` }).click();
    await askedAndCancelled(page, DOMAIN_TEXT.removeTitle(s.domain), DOMAIN_TEXT.removeText(s.domain), "domain-dialog");
    await item.getByText(DOMAIN_TEXT.status.pending).waitFor();
    await item.getByRole("button", { name: `${DOMAIN_TEXT.remove} ${s.domain}` }).click();
    await confirmDialog(page, DOMAIN_TEXT.remove);
    await page.getByTestId("domains").getByText(DOMAIN_TEXT.removed(s.domain)).waitFor();

    const panel = page.getByRole("region", { name: "Deployment" });
    await panel.getByRole("button", { name: DEPLOY_TEXT.stop }).click();
    await askedAndCancelled(page, DEPLOY_TEXT.stopTitle(s.a), DEPLOY_TEXT.stopText, "stop-dialog");
    await panel.getByTestId("deployment-status").waitFor();
    expect((await deployments(page)).map((d) => d.server_id)).toContain(s.a);
    await panel.getByRole("button", { name: DEPLOY_TEXT.stop }).click();
    await confirmDialog(page, DEPLOY_TEXT.stop);
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
    expect((await deployments(page)).map((d) => d.server_id)).not.toContain(s.a);

    // Stop Server on My deployments.
    await page.goto("/deployments");
    const mine = page.getByTestId("my-deployment").filter({ hasText: s.b });
    await mine.getByRole("button", { name: `${DEPLOY_TEXT.stop} ${s.b}` }).click();
    await askedAndCancelled(page, DEPLOY_TEXT.stopTitle(s.b), DEPLOY_TEXT.stopText, "my-deployments-stop-dialog");
    expect(await mine.count()).toBe(1);
    await mine.getByRole("button", { name: `${DEPLOY_TEXT.stop} ${s.b}` }).click();
    await confirmDialog(page, DEPLOY_TEXT.stop);
    await expect.poll(() => mine.count(), { timeout: 15_000 }).toBe(0);

    // A connection.
    await page.goto("/connections");
    const conn = page.getByTestId("connection").filter({ hasText: s.remote });
    await conn.getByRole("button", { name: `${CONNECTION_TEXT.disconnect} ${s.remote}` }).click();
    await askedAndCancelled(page, CONNECTION_TEXT.removeTitle(s.remote), CONNECTION_TEXT.removeText, "connection-dialog");
    expect(await conn.count()).toBe(1);
    await conn.getByRole("button", { name: `${CONNECTION_TEXT.disconnect} ${s.remote}` }).click();
    await confirmDialog(page, CONNECTION_TEXT.disconnect);
    await page.getByText(CONNECTION_TEXT.none).waitFor();

    // An API key.
    await page.goto("/servers/apikeys");
    await generateKey(page, "confirm-key");
    const keys = page.locator("li").filter({ hasText: "confirm-key" });
    await keys.getByRole("button", { name: "Revoke confirm-key" }).click();
    await askedAndCancelled(page, 'Revoke the API key "confirm-key"?', "Anything using it stops working at once.");
    await keys.getByRole("button", { name: "Revoke confirm-key" }).click();
    await confirmDialog(page, "Revoke");
    await page.getByText(API_KEY_TEXT.revoked("confirm-key")).waitFor();
    // A playground's session from before a restart (the members' save) or a stop is answered 404, as MCP says.
    expect(problems.filter((p) => !/404 \(Not Found\) \(http:\/\/[^)]+\/mcp\)$/.test(p))).toEqual([]);
  }, 300_000);

  it("without scripts: each unfolds its question in place; folded again nothing happens, its button does it", async () => {
    const setup = await newPage(env.browser, { viewport: WIDE });
    const s = await setUp(setup.page, "confirm-nojs");
    const { page } = await withoutScripts(setup.context);
    const bName = (await toolset(setup.page, s.set))!.members.find((m) => m.name.endsWith("-b"))!.name;

    // Members: the save comes back asking, with the choice as posted; Cancel goes back unchanged.
    await page.goto(`/toolsets/${s.set}`);
    const members = page.getByRole("region", { name: TOOLSET_TEXT.membersTitle });
    await members.getByRole("checkbox", { name: s.b }).uncheck();
    await members.getByRole("button", { name: TOOLSET_TEXT.save }).click();
    let ask = members.getByRole("group", { name: TOOLSET_TEXT.removeMembersTitle(1) });
    await ask.getByText(TOOLSET_TEXT.removeMembersText([bName])).waitFor();
    expect(await members.getByRole("checkbox", { name: s.b }).isChecked()).toBe(false);
    await shoot(page, "members-nojs", ask);
    await ask.getByRole("link", { name: TOOLSET_TEXT.cancel }).click();
    await members.getByRole("button", { name: TOOLSET_TEXT.save }).waitFor();
    expect(await members.getByRole("checkbox", { name: s.b }).isChecked()).toBe(true);
    expect((await toolset(setup.page, s.set))!.members).toHaveLength(2);
    await members.getByRole("checkbox", { name: s.b }).uncheck();
    await members.getByRole("button", { name: TOOLSET_TEXT.save }).click();
    await ask.getByRole("button", { name: TOOLSET_TEXT.removeMembersConfirm }).click();
    await members.getByRole("button", { name: TOOLSET_TEXT.save }).waitFor();
    expect((await toolset(setup.page, s.set))!.members.map((m) => m.name)).not.toContain(bName);

    // The toolset: folded again, nothing happens.
    await page.goto("/toolsets");
    const row = page.getByTestId("toolset").filter({ hasText: s.set });
    ask = await unfolded(page, row, TOOLSET_TEXT.remove, TOOLSET_TEXT.removeTitle(s.set), TOOLSET_TEXT.removeText, "toolset-nojs");
    await row.locator("summary", { hasText: TOOLSET_TEXT.remove }).click();
    expect(await ask.isVisible()).toBe(false);
    await page.reload();
    expect(await toolset(setup.page, s.set)).toBeDefined();
    ask = await unfolded(page, row, TOOLSET_TEXT.remove, TOOLSET_TEXT.removeTitle(s.set), TOOLSET_TEXT.removeText);
    await ask.getByRole("button", { name: TOOLSET_TEXT.remove, exact: true }).click();
    await page.getByText(TOOLSET_TEXT.none).waitFor();

    // A custom domain, then Stop Server on the server's page.
    await page.goto(`/server/${s.a}`);
    const item = page.getByTestId("domain");
    ask = await unfolded(
      page,
      item,
      DOMAIN_TEXT.remove,
      DOMAIN_TEXT.removeTitle(s.domain),
      DOMAIN_TEXT.removeText(s.domain),
      "domain-nojs",
    );
    await ask.getByRole("button", { name: DOMAIN_TEXT.remove, exact: true }).click();
    await page.getByTestId("domains").getByText(DOMAIN_TEXT.none).waitFor();

    const panel = page.getByRole("region", { name: "Deployment" });
    ask = await unfolded(page, panel, DEPLOY_TEXT.stop, DEPLOY_TEXT.stopTitle(s.a), DEPLOY_TEXT.stopText, "stop-nojs");
    await panel.locator("summary", { hasText: DEPLOY_TEXT.stop }).click();
    await page.reload();
    await panel.getByTestId("deployment-status").waitFor();
    ask = await unfolded(page, panel, DEPLOY_TEXT.stop, DEPLOY_TEXT.stopTitle(s.a), DEPLOY_TEXT.stopText);
    await ask.getByRole("button", { name: DEPLOY_TEXT.stop, exact: true }).click();
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
    expect((await deployments(setup.page)).map((d) => d.server_id)).not.toContain(s.a);

    // Stop Server on My deployments.
    await page.goto("/deployments");
    const mine = page.getByTestId("my-deployment").filter({ hasText: s.b });
    ask = await unfolded(page, mine, DEPLOY_TEXT.stop, DEPLOY_TEXT.stopTitle(s.b), DEPLOY_TEXT.stopText, "my-deployments-stop-nojs");
    await ask.getByRole("button", { name: DEPLOY_TEXT.stop, exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/deployments");
    await expect.poll(() => mine.count()).toBe(0);

    // A connection.
    await page.goto("/connections");
    const conn = page.getByTestId("connection").filter({ hasText: s.remote });
    ask = await unfolded(
      page,
      conn,
      CONNECTION_TEXT.disconnect,
      CONNECTION_TEXT.removeTitle(s.remote),
      CONNECTION_TEXT.removeText,
      "connection-nojs",
    );
    await ask.getByRole("button", { name: CONNECTION_TEXT.disconnect, exact: true }).click();
    await page.getByText(CONNECTION_TEXT.none).waitFor();
  }, 300_000);

  it("Reject asks first, with an optional reason the submitter reads on My submissions and by e-mail", async () => {
    const submitter = await newPage(env.browser, { viewport: WIDE });
    const email = `confirm-submitter-${Date.now()}@example.com`;
    await registerConfirmAndLogIn(submitter.page, email, PASSWORD);
    const stamp = Date.now();
    const entries = [`confirm-reject-js-${stamp}`, `confirm-reject-nojs-${stamp}`];
    for (const id of entries) {
      const r = await api(submitter.page, "POST", "/api/mcp-servers", {
        id,
        name: id,
        description: "For the rejection that asks first.",
        category: "Featured",
        type: "Community",
        source: "user_submitted",
        tags: ["confirm"],
        url: "https://example.com/mcp",
      });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
    }

    const { page, context } = await newPage(env.browser, { viewport: WIDE });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, "confirm-admin@example.com", PASSWORD);
    await page.goto("/admin/mcp-servers");
    const card = (id: string) => page.locator(`[data-server="${id}"]`);
    const [jsId, noJsId] = entries as [string, string];
    await card(jsId).getByRole("button", { name: ADMIN_TEXT.reject }).click();
    const ask = page.getByRole("alertdialog", { name: ADMIN_TEXT.rejectTitle(jsId) });
    await ask.getByText(ADMIN_TEXT.rejectText).waitFor();
    await ask.getByLabel(ADMIN_TEXT.reasonLabel).fill("Not this one");
    await shoot(page, "reject-dialog");
    await ask.getByRole("button", { name: "Cancel" }).click();
    await ask.waitFor({ state: "detached" });
    await card(jsId).getByText(ADMIN_TEXT.pendingBadge).waitFor();
    const jsReason = "Its URL answers nothing we could check.\nGive a repository and submit it again.";
    await card(jsId).getByRole("button", { name: ADMIN_TEXT.reject }).click();
    await ask.getByLabel(ADMIN_TEXT.reasonLabel).fill(jsReason);
    await confirmDialog(page, ADMIN_TEXT.reject);
    await expect.poll(() => card(jsId).count(), { timeout: 15_000 }).toBe(0);
    expect(problems).toEqual([]);

    // Without scripts: the reason's field unfolds with the question.
    const nojs = await withoutScripts(context);
    await nojs.page.goto("/admin/mcp-servers");
    const noJsCard = nojs.page.locator(`[data-server="${noJsId}"]`);
    const inPlace = await unfolded(
      nojs.page,
      noJsCard,
      ADMIN_TEXT.reject,
      ADMIN_TEXT.rejectTitle(noJsId),
      ADMIN_TEXT.rejectText,
      "reject-nojs",
    );
    await inPlace.getByLabel(ADMIN_TEXT.reasonLabel).fill("A duplicate of another entry.");
    await inPlace.getByRole("button", { name: ADMIN_TEXT.reject, exact: true }).click();
    await nojs.page.getByRole("heading", { name: ADMIN_TEXT.title }).waitFor();
    expect(await noJsCard.count()).toBe(0);

    // The submitter reads both, with their reasons, on My submissions and by e-mail.
    await submitter.page.goto("/submissions");
    const line = (id: string) => submitter.page.getByTestId("my-submission").filter({ hasText: id });
    await line(jsId).getByTestId("submission-status").getByText(MY_SUBMISSIONS_TEXT.status.rejected).waitFor();
    expect(await line(jsId).getByTestId("rejection-reason").innerText()).toContain("Give a repository and submit it again.");
    expect(await line(noJsId).getByTestId("rejection-reason").innerText()).toContain("A duplicate of another entry.");
    await submitter.page.screenshot({ path: "/tmp/shots/my-submissions-1280.png", fullPage: true });
    await submitter.page.setViewportSize({ width: 390, height: 844 });
    await submitter.page.screenshot({ path: "/tmp/shots/my-submissions-390.png", fullPage: true });
    await expect
      .poll(async () => (await mailsTo(inject("mailDir"), email)).filter((m) => !m.subject.startsWith("Confirm")).length, {
        timeout: 15_000,
      })
      .toBe(2);
    const mails = (await mailsTo(inject("mailDir"), email)).filter((m) => !m.subject.startsWith("Confirm"));
    const toJs = mails.find((m) => m.subject === REJECTION_MAIL_TEXT.subject("Switchboard", jsId))!;
    expect(toJs.text).toContain(REJECTION_MAIL_TEXT.reason(jsReason));
    const toNoJs = mails.find((m) => m.subject === REJECTION_MAIL_TEXT.subject("Switchboard", noJsId))!;
    expect(toNoJs.text).toContain(REJECTION_MAIL_TEXT.reason("A duplicate of another entry."));
  }, 180_000);
});
