// The OAuth screens in Chromium: a client sends a signed-out owner to sign in, the flow resumes at
// the consent page, Approve and Deny answer the client, and 'Connected apps' lists and revokes the
// grant. The client's side (registration, token endpoint) is driven over HTTP as a connector would.
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_TEXT } from "~/shared/auth.js";
import { OAUTH_TEXT } from "~/shared/oauth.js";
import { authorizeUrl, pkce, registerClient, token } from "../support/oauth.js";
import { appUrl, launchBrowser, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn } from "./helpers.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

// A native client's loopback callback; Chromium never reaches it, the test answers for it.
const CALLBACK = "http://127.0.0.1:45219/callback";

/** Answers for the client's callback and resolves with the URL the browser was sent to. */
function trapCallback(page: Page): Promise<URL> {
  return new Promise((resolve) => {
    void page.route(`${CALLBACK}**`, async (route) => {
      resolve(new URL(route.request().url()));
      await route.fulfill({ status: 200, contentType: "text/html", body: "<!doctype html><title>client</title><p>back in the client</p>" });
    });
  });
}

/** The connected app's server is 'everything' from the catalogue; the grant needs its deployment to exist. */
async function deployEverything(page: Page): Promise<{ id: string; url: string }> {
  return page.evaluate(async () => {
    const r = await fetch("/api/deploy/everything", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ env: {} }),
    });
    const body = (await r.json()) as { deploymentInfo: { id: string; url: string } };
    return body.deploymentInfo;
  });
}

describe("OAuth connections in Chromium", () => {
  it("signs in, approves on the consent page, lists the app under Connected apps and revokes it", async () => {
    const { context, page } = await newPage(browser);
    const email = `connector-${Date.now()}@example.com`;
    await registerConfirmAndLogIn(page, email, "connector-password-1");
    const deployment = await deployEverything(page);
    expect(deployment.url).toMatch(/\/[0-9a-f]{32}\/mcp$/);

    // Nothing is connected yet.
    await page.goto("/servers/apikeys");
    const apps = page.getByRole("region", { name: OAUTH_TEXT.connectedTitle });
    await apps.getByText(OAUTH_TEXT.empty).waitFor();

    // A connector registers itself and sends the (signed-out) owner to authorize.
    const client = await registerClient(appUrl(), { client_name: "E2E Connector", redirect_uris: [CALLBACK] });
    await context.clearCookies();
    const { verifier, challenge } = pkce();
    await page.goto(
      authorizeUrl(appUrl(), {
        clientId: client.client_id,
        resource: deployment.url,
        redirectUri: CALLBACK,
        challenge,
        state: "e2e-state",
      }),
    );
    await page.waitForURL((u) => u.pathname === "/login" && u.searchParams.get("client_id") === client.client_id);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("connector-password-1");
    await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();

    // Back in the flow: the consent page, its heading focused, the answer's host in plain sight.
    await page.waitForURL((u) => u.pathname === "/oauth/consent");
    const title = page.getByRole("heading", { level: 1 });
    await title.waitFor();
    expect(await title.textContent()).toMatch(/^Allow E2E Connector to use .+\?$/);
    // Focused once the page has hydrated (its effect runs then): wait for it.
    await expect.poll(() => title.evaluate((h) => h === document.activeElement), { timeout: 5000 }).toBe(true);
    expect(await page.getByTestId("consent-redirect-host").textContent()).toBe("127.0.0.1:45219");
    expect(await page.getByTestId("consent-deployment").textContent()).toContain(deployment.url);
    await page.getByText(OAUTH_TEXT.mayUse).waitFor();
    await page.screenshot({ path: "test-results/oauth-consent.png", fullPage: true });

    // Keyboard: from the heading, Tab reaches Deny then Approve; Enter approves.
    const callback = trapCallback(page);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(OAUTH_TEXT.deny);
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(OAUTH_TEXT.approve);
    await page.keyboard.press("Enter");
    const answered = await callback;
    await page.waitForURL((u) => u.port === "45219");
    expect(answered.searchParams.get("state")).toBe("e2e-state");
    expect(answered.searchParams.get("iss")).toBe(`${appUrl()}/api/auth`);
    const code = answered.searchParams.get("code")!;
    expect(code).toBeTruthy();

    const t = await token(appUrl(), {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      resource: deployment.url,
    });
    expect(t.status).toBe(200);
    const { refresh_token } = t.json<{ refresh_token: string }>();

    // The grant is on the API keys page, with the host its answers go to and the deployment.
    await page.goto("/servers/apikeys");
    const row = page.getByTestId("connected-app").filter({ hasText: "E2E Connector" });
    await row.getByText(OAUTH_TEXT.sendsToHost("127.0.0.1:45219")).waitFor();
    await row.getByRole("link", { name: "everything" }).waitFor();
    await row.getByText(/Granted /).waitFor();
    await page.screenshot({ path: "test-results/oauth-connected-apps.png", fullPage: true });

    await row.getByRole("button", { name: OAUTH_TEXT.revokeLabel("E2E Connector", "everything") }).click();
    const dialog = page.getByRole("alertdialog", { name: OAUTH_TEXT.revokeTitle("E2E Connector", "everything") });
    await dialog.getByText(OAUTH_TEXT.revokeText).waitFor();
    await dialog.getByRole("button", { name: OAUTH_TEXT.revoke, exact: true }).click();
    await page.getByText(OAUTH_TEXT.revoked("E2E Connector")).waitFor();
    await page.getByRole("region", { name: OAUTH_TEXT.connectedTitle }).getByText(OAUTH_TEXT.empty).waitFor();

    // Revoked: the refresh token no longer works.
    const refreshed = await token(appUrl(), {
      grant_type: "refresh_token",
      refresh_token,
      client_id: client.client_id,
      resource: deployment.url,
    });
    expect(refreshed.status).toBeGreaterThanOrEqual(400);

    // Asked again, the owner denies: the client gets access_denied with its state.
    const denied = trapCallback(page);
    await page.goto(
      authorizeUrl(appUrl(), {
        clientId: client.client_id,
        resource: deployment.url,
        redirectUri: CALLBACK,
        challenge: pkce().challenge,
        state: "e2e-deny",
      }),
    );
    await page.waitForURL((u) => u.pathname === "/oauth/consent");
    // Its signed query has run out (as after a minute on the page): the page renews it and the answer still arrives.
    const stale = new URL(page.url());
    stale.searchParams.set("sig", `${stale.searchParams.get("sig")}x`);
    await page.goto(stale.toString());
    await page.getByRole("button", { name: OAUTH_TEXT.deny }).click();
    const no = await denied;
    expect(no.searchParams.get("error")).toBe("access_denied");
    expect(no.searchParams.get("state")).toBe("e2e-deny");
    await page.waitForURL((u) => u.port === "45219");

    // The Deployment panel tells how: add the URL as a custom connector and approve.
    await page.goto("/server/everything");
    const panel = page.getByRole("region", { name: "Deployment" });
    await panel.getByText("Running", { exact: true }).waitFor({ timeout: 120_000 });
    const connect = panel.getByTestId("hosted-connect");
    await connect.getByRole("radio", { name: OAUTH_TEXT.connectorClaude }).click();
    expect(await connect.locator("pre").textContent()).toBe(deployment.url);
    expect(await connect.getByTestId("hosted-connect-where").textContent()).toBe(OAUTH_TEXT.connectorStepsClaude("Switchboard"));
    await connect.getByRole("radio", { name: OAUTH_TEXT.connectorChatGpt }).click();
    expect(await connect.locator("pre").textContent()).toBe(deployment.url);
    expect(await connect.getByTestId("hosted-connect-where").textContent()).toBe(OAUTH_TEXT.connectorStepsChatGpt("Switchboard"));
    await connect.getByRole("link", { name: OAUTH_TEXT.connectedTitle }).waitFor();

    // What the page met until now: once the deployment is deleted, the playground still open on
    // the page gets 404 from its URL (as it should), which is not what this test looks at.
    const problems = [...problemsOf(page)];
    await page.evaluate((id) => fetch(`/api/deployments/${id}`, { method: "DELETE" }), deployment.id);
    // Expected: the one refused post of the stale query (400) that the page then renewed.
    const expected = (p: string) => p.includes("127.0.0.1:45219") || p.includes("status of 400");
    expect(problems.filter((p) => !expected(p))).toEqual([]);
    expect(problems.filter((p) => p.includes("status of 400"))).toHaveLength(1);
    await context.close();
  }, 240_000);

  it("resumes the request after GitHub sign-in, and refuses a deployment that is not the person's", async () => {
    const { context: ownerContext, page: ownerPage } = await newPage(browser);
    await registerConfirmAndLogIn(ownerPage, `gh-owner-${Date.now()}@example.com`, "gh-owner-password-1");
    const deployment = await deployEverything(ownerPage);
    const client = await registerClient(appUrl(), { client_name: "GitHub Path Client", redirect_uris: [CALLBACK] });

    const { context, page } = await newPage(browser);
    await page.goto(
      authorizeUrl(appUrl(), {
        clientId: client.client_id,
        resource: deployment.url,
        redirectUri: CALLBACK,
        challenge: pkce().challenge,
        state: "gh",
      }),
    );
    await page.waitForURL((u) => u.pathname === "/login");
    // "Sign up" keeps the request.
    const signUp = await page.getByRole("link", { name: AUTH_TEXT.signUp }).getAttribute("href");
    expect(new URLSearchParams(signUp!.split("?")[1]).get("client_id")).toBe(client.client_id);
    await page.getByRole("button", { name: AUTH_TEXT.continueWithGitHub }).click();
    // octocat does not own that deployment: the consent page says so and offers nothing to press.
    await page.waitForURL((u) => u.pathname === "/oauth/consent");
    await page.getByRole("heading", { name: OAUTH_TEXT.consentUnavailable }).waitFor();
    expect(await page.getByRole("button", { name: OAUTH_TEXT.approve }).count()).toBe(0);
    await context.close();

    await ownerPage.evaluate((id) => fetch(`/api/deployments/${id}`, { method: "DELETE" }), deployment.id);
    await ownerContext.close();
  }, 120_000);
});
