// Every form that changes something or carries a secret, completed in Chromium with JavaScript
// turned off: each posts to its route's action, which answers with the spec's texts rendered by
// the server (a field's error at the field, the form's at its top) or the spec's redirect.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AUTH_TEXT, FORGOT_TEXT, PROFILE_TEXT, RESET_TEXT } from "~/shared/auth.js";
import { BILLING_TEXT } from "~/shared/billing.js";
import { ADMIN_TEXT, SUBMIT_TEXT } from "~/shared/catalog.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { OAUTH_TEXT } from "~/shared/oauth.js";
import { API_KEY_TEXT, SERVER_FORM_TEXT } from "~/shared/publishers.js";
import { waitForMail } from "../support/smtp-sink.js";
import { authorizeUrl, pkce, registerClient } from "../support/oauth.js";
import { appUrl, launchBrowser, newPage, problemsOf } from "./browser.js";
import { generateKey, logIn, registerConfirmAndLogIn } from "./helpers.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

const PASSWORD = "nojs-password-1";

async function noJsPage() {
  const opened = await newPage(browser, { javaScriptEnabled: false });
  // No script runs: the page never hydrates (root.tsx marks a page that has).
  await opened.page.goto("/");
  expect(await opened.page.locator("html[data-hydrated]").count()).toBe(0);
  return opened;
}

/** The field's error: next to it, and the field says so (aria-invalid, aria-describedby naming the error). */
async function expectFieldError(page: Page, label: string, message: string, exact = false) {
  const input = page.getByLabel(label, { exact });
  expect(await input.getAttribute("aria-invalid")).toBe("true");
  const describedBy = (await input.getAttribute("aria-describedby")) ?? "";
  const texts = await Promise.all(
    describedBy
      .split(" ")
      .filter(Boolean)
      .map((id) => page.locator(`[id="${id}"]`).textContent()),
  );
  expect(texts).toContain(message);
}

const logInNoJs = (page: Page, email: string, password = PASSWORD) => logIn(page, email, password);

/** Registers through the page without JavaScript, follows the e-mailed link, and logs in. */
async function newAccountNoJs(page: Page, email: string) {
  await registerConfirmAndLogIn(page, email, PASSWORD);
  return email.split("@")[0]!;
}

describe("forms without JavaScript", () => {
  it("register (a short password at its field), confirm, log in (both errors), forgot and reset password", async () => {
    const { page, context } = await noJsPage();
    const email = `nojs-${Date.now()}@example.com`;
    const started = Date.now();

    await page.goto("/register");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: AUTH_TEXT.createAccount }).click();
    await page.getByText(AUTH_TEXT.passwordTooShort).waitFor();
    await expectFieldError(page, "Password", AUTH_TEXT.passwordTooShort);
    // The address is kept; the password never comes back.
    expect(await page.getByLabel("Email").inputValue()).toBe(email);
    expect(await page.getByLabel("Password").inputValue()).toBe("");
    expect(await page.content()).not.toContain('value="short"');
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: AUTH_TEXT.createAccount }).click();
    await page.getByRole("heading", { name: AUTH_TEXT.checkEmail }).waitFor();
    await page.getByText(AUTH_TEXT.checkEmailText).waitFor();

    await page.goto("/login");
    await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
    await page.getByText(AUTH_TEXT.bothRequired).waitFor();
    expect(await page.locator("form#login").getAttribute("aria-describedby")).toBe("login-error");
    await logInNoJs(page, email);
    await page.getByText(AUTH_TEXT.emailNotConfirmed).waitFor();

    const mail = await waitForMail(inject("mailDir"), email, { after: started - 1000 });
    await page.goto(mail.text.match(/https?:\/\/\S+/)![0]);
    await logInNoJs(page, email, "wrong-password-1");
    await page.getByText(AUTH_TEXT.invalidCredentials).waitFor();
    // A login with somewhere to go afterwards goes there; one that names another site does not.
    await page.goto("/login?redirect=//evil.example/steal");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/" && u.host === new URL(appUrl()).host);
    await page.getByRole("link", { name: "Add Server" }).first().waitFor();
    await context.clearCookies();
    await page.goto("/login?redirect=/profile");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/profile");
    await context.clearCookies();

    const asked = Date.now();
    await page.goto("/forgot-password");
    await page.getByRole("button", { name: FORGOT_TEXT.send }).click();
    await expectFieldError(page, "Email", FORGOT_TEXT.required);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: FORGOT_TEXT.send }).click();
    await page.getByText(FORGOT_TEXT.sent(email)).waitFor();
    const reset = await waitForMail(inject("mailDir"), email, { after: asked - 1000 });
    await page.goto(reset.text.match(/https?:\/\/\S+/)![0]);
    await page.getByLabel("New Password", { exact: true }).fill("second-password-1");
    await page.getByLabel("Confirm New Password").fill("second-password-2");
    await page.getByRole("button", { name: RESET_TEXT.save }).click();
    await expectFieldError(page, "Confirm New Password", PROFILE_TEXT.mismatch);
    await page.getByLabel("New Password", { exact: true }).fill("second-password-1");
    await page.getByLabel("Confirm New Password").fill("second-password-1");
    await page.getByRole("button", { name: RESET_TEXT.save }).click();
    await page.getByText(RESET_TEXT.done).waitFor();
    await logInNoJs(page, email, "second-password-1");
    await page.waitForURL((u) => u.pathname === "/");
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  }, 120_000);

  it("profile: nothing changed, a new password without the current one, a new username saved", async () => {
    const { page, context } = await noJsPage();
    const email = `nojs-profile-${Date.now()}@example.com`;
    const username = await newAccountNoJs(page, email);
    await page.goto("/profile");
    await page.getByRole("button", { name: PROFILE_TEXT.save }).click();
    await page.getByText(PROFILE_TEXT.noChanges).waitFor();
    await page.getByLabel("New Password", { exact: true }).fill("nojs-password-2");
    await page.getByLabel("Confirm New Password").fill("nojs-password-3");
    await page.getByRole("button", { name: PROFILE_TEXT.save }).click();
    await expectFieldError(page, "Current Password", PROFILE_TEXT.currentRequired);
    await expectFieldError(page, "Confirm New Password", PROFILE_TEXT.mismatch);
    expect(await page.getByLabel("New Password", { exact: true }).inputValue()).toBe("");
    await page.getByLabel("Username").fill(`${username}-renamed`);
    await page.getByRole("button", { name: PROFILE_TEXT.save }).click();
    await page.getByText(PROFILE_TEXT.updated).waitFor();
    expect(await page.getByLabel("Username").inputValue()).toBe(`${username}-renamed`);
    // The header shows the new name at once.
    await page.getByRole("button", { name: `Account menu for ${username}-renamed` }).waitFor();

    // Deleting the account asks for the address first, in place.
    await page.locator("summary", { hasText: "Delete Account" }).click();
    await page.getByLabel(`Type ${email} to confirm.`).fill("someone-else@example.com");
    await page.getByRole("button", { name: "Permanently delete my account" }).click();
    await page.getByText(PROFILE_TEXT.deleteConfirmMismatch).waitFor(); // shown with the confirmation still unfolded
    await page.getByLabel(`Type ${email} to confirm.`).fill(email);
    await page.getByRole("button", { name: "Permanently delete my account" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    await logInNoJs(page, email);
    await page.getByText(AUTH_TEXT.invalidCredentials).waitFor();
    await context.close();
  }, 60_000);

  it("API keys: a name is required at its field; a new key is shown once; revoking asks first", async () => {
    const { page, context } = await noJsPage();
    await newAccountNoJs(page, `nojs-keys-${Date.now()}@example.com`);
    await page.goto("/servers/apikeys");
    await page.getByRole("button", { name: "Generate API Key" }).click();
    await expectFieldError(page, "New key name", API_KEY_TEXT.nameRequired);
    const key = await generateKey(page, "no script", ["servers"]);
    const call = (k: string) => fetch(`${appUrl()}/api/servers`, { headers: { authorization: `Bearer ${k}` } });
    expect((await call(key)).status).toBe(200);
    await page.goto("/servers/apikeys");
    expect(await page.content()).not.toContain(key);

    await page.locator("summary", { hasText: "Revoke no script" }).click(); // unfolds the confirmation in place
    await page.getByText("Anything using it stops working at once.").waitFor();
    await page.getByRole("group", { name: 'Revoke the API key "no script"?' }).getByRole("button", { name: "Revoke", exact: true }).click();
    await page.getByText(API_KEY_TEXT.revoked("no script")).waitFor();
    await page.getByText(API_KEY_TEXT.empty).waitFor();
    expect((await call(key)).status).toBe(401);
    await context.close();
  }, 60_000);

  it("add server (required fields, a required key added and listed) and register/edit a server (errors at their fields, connections added and removed)", async () => {
    const { page, context } = await noJsPage();
    const username = await newAccountNoJs(page, `nojs-maker-${Date.now()}@example.com`);
    const stamp = Date.now();

    await page.goto("/servers/add");
    await page.getByRole("button", { name: SUBMIT_TEXT.submit }).click();
    await page.getByText(SUBMIT_TEXT.requiredFields).waitFor();
    await page.getByLabel("Server Name *").fill(`No Script ${stamp}`);
    await page.getByLabel("Server ID *").fill(`nojs-submit-${stamp}`);
    await page.getByLabel("Description *").fill("Submitted without scripts.");
    await page.getByLabel("Tags *").fill("plain, html");
    await page.getByLabel("Repository URL").fill("not a url");
    await page.getByLabel("Key Name").fill("Plain Key");
    await page.getByLabel("Environment Variable").fill("PLAIN_KEY");
    await page.getByLabel("Description", { exact: true }).fill("A key typed without scripts");
    await page.getByRole("button", { name: "Add Key" }).click();
    await page.getByText("Plain Key (PLAIN_KEY)").waitFor();
    expect(await page.getByLabel("Server Name *").inputValue()).toBe(`No Script ${stamp}`);
    expect(await page.getByLabel("Key Name").inputValue()).toBe("");
    await page.getByRole("button", { name: SUBMIT_TEXT.submit }).click();
    await expectFieldError(page, "Repository URL", SUBMIT_TEXT.urlInvalid("Repository URL"));
    await page.getByText("Plain Key (PLAIN_KEY)").waitFor();
    await page.getByLabel("Repository URL").fill("https://github.com/acme/no-script");
    await page.getByRole("button", { name: SUBMIT_TEXT.submit }).click();
    await page.getByText(SUBMIT_TEXT.success).waitFor();
    // Then home, after 3 s (the page asks for it: no scripts needed).
    await page.waitForURL((u) => u.pathname === "/", { timeout: 8000 });
    const submitted = await (await fetch(`${appUrl()}/api/mcp-servers/nojs-submit-${stamp}`)).status;
    expect(submitted).toBe(404); // pending review: not public yet

    await page.goto("/servers/server/new");
    await page.getByLabel("Qualified Name *").fill("no-slash");
    await page.getByLabel("Display Name *").fill("Plain Tides");
    await page.getByLabel("Description *").fill("Tides without scripts.");
    await page.getByRole("button", { name: "Register Server" }).click();
    await expectFieldError(page, "Qualified Name *", SERVER_FORM_TEXT.qualifiedNameFormat);
    expect(await page.getByLabel("Display Name *").inputValue()).toBe("Plain Tides");
    await page.getByLabel("Qualified Name *").fill(`${username}/plain-tides`);
    await page.getByLabel("URL", { exact: true }).fill("wss://tides.example.com/ws");
    await page.getByLabel("Config Schema (JSON)").fill("{ not json");
    await page.getByRole("button", { name: "Register Server" }).click();
    await expectFieldError(page, "Config Schema (JSON)", SERVER_FORM_TEXT.configSchemaJson);
    await page.getByLabel("Config Schema (JSON)").fill('{"type":"object","required":["tideKey"]}');
    await page.getByRole("button", { name: "Add Connection" }).click();
    expect(await page.getByTestId("connection").count()).toBe(2);
    expect(await page.getByLabel("URL", { exact: true }).first().inputValue()).toBe("wss://tides.example.com/ws");
    await page.getByRole("button", { name: "Remove" }).nth(1).click();
    expect(await page.getByTestId("connection").count()).toBe(1);
    await page.getByRole("button", { name: "Register Server" }).click();
    await page.waitForURL((u) => u.pathname === `/server/${username}/plain-tides`);
    await page.getByRole("heading", { name: "Plain Tides" }).waitFor();
    await page.getByText("TIDE_KEY").first().waitFor();

    await page.goto(`/servers/server/${username}/plain-tides/edit`);
    await page.getByLabel("Display Name *").fill("Plain Tides Pro");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.waitForURL((u) => u.pathname === `/server/${username}/plain-tides`);
    await page.getByRole("heading", { name: "Plain Tides Pro" }).waitFor();

    // Deploy asks for its key first, at the panel.
    const panel = page.getByRole("region", { name: "Deployment" });
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();
    await page
      .getByRole("region", { name: "Deployment" })
      .getByText(DEPLOY_TEXT.missingKeys(["tideKey"]))
      .waitFor();
    await context.close();
  }, 90_000);

  it("deploy and stop a catalogue entry", async () => {
    const { page, context } = await noJsPage();
    await newAccountNoJs(page, `nojs-deployer-${Date.now()}@example.com`);
    await page.goto("/server/everything");
    const panel = page.getByRole("region", { name: "Deployment" });
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();
    // Back on the page (a reload posts nothing again), the deployment is there, then running.
    await page.waitForURL((u) => u.pathname === "/server/everything");
    await panel.getByTestId("deployment-status").waitFor();
    for (let i = 0; i < 60 && (await panel.getByTestId("deployment-status").textContent()) !== "Running"; i++) {
      await page.waitForTimeout(2000);
      await page.reload();
    }
    expect(await panel.getByTestId("deployment-status").textContent()).toBe("Running");
    expect(await panel.locator("code").first().textContent()).toMatch(/\/[0-9a-f]{32}\/mcp$/);
    // Stop asks first, in place: what stops working, and its own Stop Server.
    await panel.locator("summary", { hasText: DEPLOY_TEXT.stop }).click();
    const ask = panel.getByRole("group", { name: DEPLOY_TEXT.stopTitle("everything") });
    await ask.getByText(DEPLOY_TEXT.stopText).waitFor();
    await ask.getByRole("button", { name: DEPLOY_TEXT.stop, exact: true }).click();
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
    await context.close();
  }, 180_000);

  it("admin: approve, unapprove and reject", async () => {
    const submitter = await noJsPage();
    await newAccountNoJs(submitter.page, `nojs-submitter-${Date.now()}@example.com`);
    const stamp = Date.now();
    for (const id of [`nojs-approve-${stamp}`, `nojs-reject-${stamp}`]) {
      await submitter.page.goto("/servers/add");
      await submitter.page.getByLabel("Server Name *").fill(id);
      await submitter.page.getByLabel("Description *").fill("For the review without scripts.");
      await submitter.page.getByLabel("Tags *").fill("review");
      await submitter.page.getByRole("button", { name: SUBMIT_TEXT.submit }).click();
      await submitter.page.getByText(SUBMIT_TEXT.success).waitFor();
    }
    await submitter.context.close();

    const { page, context } = await noJsPage();
    await newAccountNoJs(page, "nojs-admin@example.com");
    await page.goto("/admin/mcp-servers");
    await page.getByRole("heading", { name: ADMIN_TEXT.title }).waitFor();
    const card = (id: string) => page.locator(`[data-server="${id}"]`);
    // Reject asks first, in place (its reason is optional).
    const reject = async (c: ReturnType<typeof card>) => {
      await c.locator("summary", { hasText: ADMIN_TEXT.reject }).click();
      await c.getByRole("group").getByRole("button", { name: ADMIN_TEXT.reject, exact: true }).click();
    };
    await card(`nojs-approve-${stamp}`).getByText(ADMIN_TEXT.pendingBadge).waitFor();
    await card(`nojs-approve-${stamp}`).getByRole("button", { name: "Approve" }).click();
    await card(`nojs-approve-${stamp}`).getByText(ADMIN_TEXT.approvedBadge, { exact: true }).waitFor();
    expect((await fetch(`${appUrl()}/api/mcp-servers/nojs-approve-${stamp}`)).status).toBe(200);
    await card(`nojs-approve-${stamp}`).getByRole("button", { name: "Unapprove" }).click();
    await card(`nojs-approve-${stamp}`).getByText(ADMIN_TEXT.pendingBadge).waitFor();
    expect((await fetch(`${appUrl()}/api/mcp-servers/nojs-approve-${stamp}`)).status).toBe(404);
    await reject(card(`nojs-reject-${stamp}`));
    await page.getByRole("heading", { name: ADMIN_TEXT.title }).waitFor();
    expect(await card(`nojs-reject-${stamp}`).count()).toBe(0);
    // Leave no pending entry behind (this file's submissions): the review test counts them.
    for (;;) {
      const pending = page.locator('[data-server^="nojs-"]').filter({ hasText: ADMIN_TEXT.pendingBadge });
      if ((await pending.count()) === 0) break;
      await reject(pending.first());
      await page.getByRole("heading", { name: ADMIN_TEXT.title }).waitFor();
    }
    await context.close();
  }, 90_000);

  it("subscription: Pro through the test checkout, cancel (asked first), and Free", async () => {
    const { page, context } = await noJsPage();
    await newAccountNoJs(page, `nojs-billing-${Date.now()}@example.com`);
    await page.goto("/subscription");
    const current = page.getByRole("region", { name: BILLING_TEXT.currentSubscription });
    await current.getByTestId("current-plan").getByText("Free", { exact: true }).waitFor();
    await page
      .getByRole("article", { name: "Pro", exact: true })
      .getByRole("button", { name: BILLING_TEXT.subscribeTo("Pro") })
      .click();
    await page.waitForURL((u) => u.pathname.startsWith("/subscription/test-checkout/"));
    await page.getByText(BILLING_TEXT.testMode).waitFor();
    await page.getByRole("button", { name: BILLING_TEXT.confirmPayment }).click();
    await page.waitForURL((u) => u.pathname === "/subscription");
    await page.getByText(BILLING_TEXT.checkoutSuccess).waitFor();
    await current.getByTestId("current-plan").getByText("Pro", { exact: true }).waitFor();

    await current.locator("summary", { hasText: BILLING_TEXT.cancel }).click(); // unfolds the confirmation in place
    await current.getByText(BILLING_TEXT.confirmCancel).waitFor();
    await current.getByRole("button", { name: "Confirm" }).click();
    await page.getByText(/^Subscription canceled successfully/).waitFor();
    await current.getByText(/Your subscription will end on /).waitFor();

    await page.getByRole("article", { name: "Free", exact: true }).getByRole("button", { name: BILLING_TEXT.useFree }).click();
    await page.getByText(BILLING_TEXT.switchedToFree).waitFor();
    await context.close();
  }, 90_000);

  it("OAuth: signs in on the way and approves on the consent page; the client gets its code", async () => {
    const owner = await newPage(browser);
    await owner.page.goto("/");
    const email = `nojs-owner-${Date.now()}@example.com`;
    const { page, context } = await noJsPage();
    await newAccountNoJs(page, email);
    const deployment = await owner.page.evaluate(
      async ({ email, password }) => {
        const json = { "content-type": "application/json" };
        await fetch("/api/auth/sign-in/email", { method: "POST", headers: json, body: JSON.stringify({ email, password }) });
        const r = await fetch("/api/deploy/everything", { method: "POST", headers: json, body: JSON.stringify({ env: {} }) });
        return ((await r.json()) as { deploymentInfo: { id: string; url: string } }).deploymentInfo;
      },
      { email, password: PASSWORD },
    );
    await context.clearCookies();

    const callback = "http://127.0.0.1:45220/callback";
    let arrived: URL | undefined;
    await page.route(`${callback}**`, async (route) => {
      arrived = new URL(route.request().url());
      await route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>client</title><p>back in the client</p>" });
    });
    const client = await registerClient(appUrl(), { client_name: "No Script Client", redirect_uris: [callback] });
    await page.goto(
      authorizeUrl(appUrl(), {
        clientId: client.client_id,
        resource: deployment.url,
        redirectUri: callback,
        challenge: pkce().challenge,
        state: "nojs",
      }),
    );
    await page.waitForURL((u) => u.pathname === "/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/oauth/consent");
    await page.getByTestId("consent-title").getByText("Allow No Script Client to use").waitFor();
    await page.getByRole("button", { name: OAUTH_TEXT.approve }).click();
    await page.waitForURL((u) => u.port === "45220");
    expect(arrived?.searchParams.get("state")).toBe("nojs");
    expect(arrived?.searchParams.get("code")).toBeTruthy();

    await owner.page.evaluate((id) => fetch(`/api/deployments/${id}`, { method: "DELETE" }), deployment.id);
    await owner.context.close();
    await context.close();
  }, 120_000);
});
