// A deployment in daily use (issue 31): keys edited and the server restarted from 'My
// deployments' without a new deploy, on a phone as on a desktop; its panels follow it to running
// without a reload; a visitor who signs up on the way to a server comes back to it.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { AUTH_TEXT } from "~/shared/auth.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { waitForMail } from "../support/smtp-sink.js";
import { sdkClient, textOf } from "../support/gateway.js";
import { browserWithFixtureRepo, newPage, problemsOf } from "./browser.js";
import { confirmDialog, logIn, registerConfirmAndLogIn } from "./helpers.js";

const env = browserWithFixtureRepo();

/** As the signed-in user of `page`: registers `<username>/<name>` (it asks for the key API_KEY) and deploys the fixture repository with `apiKey`. */
async function deployKeyed(page: Page, name: string, apiKey: string): Promise<string> {
  return page.evaluate(
    async ({ name, repositoryUrl, apiKey }) => {
      const me = (await (await fetch("/api/auth/me")).json()) as { user: { username: string } };
      const qn = `${me.user.username}/${name}`;
      const json = { "content-type": "application/json" };
      const schema = { type: "object", required: ["apiKey"], properties: { apiKey: { type: "string", title: "API key" } } };
      const server = {
        qualifiedName: qn,
        displayName: name,
        description: "Needs a key",
        repositoryUrl: "https://github.com/acme/keyed",
        keywords: "test",
        connections: [{ type: "http", url: "https://example.com/mcp", configSchema: schema }],
      };
      const r = await fetch("/api/servers", { method: "POST", headers: json, body: JSON.stringify(server) });
      if (r.status !== 201) throw new Error(`register: ${r.status} ${await r.text()}`);
      const d = await fetch(`/api/deploy/${qn}`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ repositoryUrl, env: { API_KEY: apiKey } }),
      });
      if (d.status !== 202) throw new Error(`deploy: ${d.status} ${await d.text()}`);
      return qn;
    },
    { name, repositoryUrl: env.repo.url, apiKey },
  );
}

/** A key for MCP clients, made through the API as the page's user. */
const mcpKey = (page: Page, name: string) =>
  page.evaluate(async (name) => {
    const r = await fetch("/api/auth/apikeys", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    return ((await r.json()) as { apiKey: string }).apiKey;
  }, name);

/** What My deployments says of the plan's use (it reloads the page there). */
async function planUsage(page: Page): Promise<string> {
  await page.goto("/deployments");
  return (await page.getByTestId("plan-usage").textContent())!;
}

describe("My deployments in Chromium", () => {
  for (const [label, viewport] of [
    ["desktop", { width: 1280, height: 900 }],
    ["a 390 px phone", { width: 390, height: 844 }],
  ] as const) {
    it(`edits a key and restarts in place, on ${label}: same URL, the new key in use, no deploy spent`, async () => {
      const { page } = await newPage(env.browser, { viewport });
      const problems = problemsOf(page);
      // A restart ends the server's sessions: a request of the playground's old session (its event
      // stream reconnecting, say) gets the specification's 404 from the deployment's URL, and the
      // playground starts a new one. That 404 is the protocol working; any other is a bug.
      const sessionEnded: string[] = [];
      page.on("response", (r) => {
        if (r.status() === 404 && new URL(r.url()).pathname.endsWith("/mcp")) sessionEnded.push(r.url());
      });
      await registerConfirmAndLogIn(page, `keys-${viewport.width}@example.com`, "keys-password-1");
      const qn = await deployKeyed(page, "keyed", "first-value");
      expect(await planUsage(page)).toMatch(/^Free plan: 1 of 1 awake[,.]/);
      const row = page.getByTestId("my-deployment");
      await expect
        .poll(async () => (await page.reload(), row.getByTestId("my-deployment-status").textContent()), { timeout: 60_000, interval: 1000 })
        .toBe("Running");
      const url = (await row.locator("code").textContent())!;
      await row.getByRole("link", { name: DEPLOY_TEXT.editKeys }).click();
      await page.waitForURL((u) => u.pathname === `/server/${qn}` && u.searchParams.get("edit") === "keys");

      // The panel opens at 'Edit keys'; the key's field is empty (a secret is never shown back).
      const panel = page.getByRole("region", { name: "Deployment" });
      const field = panel.getByLabel(/^API key/);
      await field.waitFor();
      expect(await field.inputValue()).toBe("");
      await field.fill("second-value");
      await panel.getByRole("button", { name: DEPLOY_TEXT.saveKeys }).click();
      await panel.getByText(DEPLOY_TEXT.keysSaved).waitFor();
      // The answer came once the row was queued again: running from now on is the new process.
      // (The panel may still show the old status for a moment, until its state catches up.)
      await expect
        .poll(
          () =>
            page.evaluate(
              async (qn) =>
                ((await (await fetch(`/api/deployments/server/${qn}`)).json()) as { deployments: { status: string }[] }).deployments[0]
                  ?.status,
              qn,
            ),
          {
            timeout: 60_000,
            interval: 500,
          },
        )
        .toBe("running");
      await panel.getByText("Running", { exact: true }).waitFor({ timeout: 60_000 });
      expect(await panel.locator("code").first().textContent()).toBe(url);
      await page.screenshot({ path: `test-results/edit-keys-${viewport.width}.png`, fullPage: false });

      // The URL as it was, answering with the new key's value in the server's environment.
      const client = await sdkClient(url, await mcpKey(page, `client-${viewport.width}`));
      expect(textOf(await client.callTool({ name: "get_env", arguments: { name: "API_KEY" } }))).toBe("second-value");
      await client.close();

      // Restart from My deployments: accepted at once, running again shortly, still no deploy spent.
      await page.goto("/deployments");
      await row.getByRole("button", { name: DEPLOY_TEXT.restart }).click();
      await row.getByText(DEPLOY_TEXT.restarted).waitFor();
      await expect
        .poll(async () => (await page.reload(), row.getByTestId("my-deployment-status").textContent()), { timeout: 60_000, interval: 1000 })
        .toBe("Running");
      expect(await row.locator("code").textContent()).toBe(url);
      await page.screenshot({ path: `test-results/my-deployments-${viewport.width}.png`, fullPage: true });
      expect(await planUsage(page)).toMatch(/^Free plan: 1 of 1 awake[,.]/);
      await row.getByRole("button", { name: DEPLOY_TEXT.stop }).click();
      await confirmDialog(page, DEPLOY_TEXT.stop);
      await page.getByText("You have no deployments yet.").waitFor();
      const notFound = "console: Failed to load resource: the server responded with a status of 404 (Not Found)";
      expect(problems.filter((p) => !p.startsWith(notFound))).toEqual([]);
      expect(problems.filter((p) => p.startsWith(notFound)).length).toBeLessThanOrEqual(sessionEnded.length);
    }, 180_000);
  }

  it("the server page's panels follow the deployment to running, without a reload", async () => {
    const { page } = await newPage(env.browser, { viewport: { width: 1280, height: 900 } });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, "panels@example.com", "panels-password-1");
    const qn = await page.evaluate(async () => {
      const me = (await (await fetch("/api/auth/me")).json()) as { user: { username: string } };
      const qn = `${me.user.username}/plain`;
      const server = {
        qualifiedName: qn,
        displayName: "plain",
        description: "No keys",
        repositoryUrl: "https://github.com/acme/plain",
        keywords: "test",
        connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
      };
      await fetch("/api/servers", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(server) });
      return qn;
    });
    await page.goto(`/server/${qn}`);
    const panel = page.getByRole("region", { name: "Deployment" });
    await panel.getByLabel(DEPLOY_TEXT.commandLabel).waitFor();
    // Deployed from the fixture repository through the API while the page stays open (the panel polls).
    await page.evaluate(
      async ({ qn, repositoryUrl }) => {
        const d = await fetch(`/api/deploy/${qn}`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ repositoryUrl, env: {} }),
        });
        if (d.status !== 202) throw new Error(`deploy: ${d.status}`);
      },
      { qn, repositoryUrl: env.repo.url },
    );
    await panel.getByText("Running", { exact: true }).waitFor({ timeout: 60_000 });
    // The tool lists the page's loader filled show its tools now.
    await page.getByRole("region", { name: "Tools" }).getByText("echo", { exact: true }).waitFor({ timeout: 10_000 });
    await page
      .getByTestId("tool-selection")
      .getByText(/\d+ of \d+ tools exposed/)
      .waitFor({ timeout: 10_000 });
    expect(await page.getByText(DEPLOY_TEXT.toolsNone).count()).toBe(0);
    await panel.getByRole("button", { name: DEPLOY_TEXT.stop }).click();
    await confirmDialog(page, DEPLOY_TEXT.stop);
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
    expect(problems).toEqual([]);
  }, 120_000);
});

describe("signing up on the way to a server", () => {
  it("Deploy -> Sign up -> confirm by e-mail -> log in lands on the server, not the home page", async () => {
    const { page } = await newPage(env.browser);
    const problems = problemsOf(page);
    await page.goto("/server/everything");
    await page.getByRole("region", { name: "Deployment" }).getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/login" && u.searchParams.get("redirect") === "/server/everything");
    // The address changes before a slow machine has drawn the log-in page: click its own link once it is there.
    await page.getByRole("heading", { name: AUTH_TEXT.loginTitle("Switchboard") }).waitFor();
    await page.getByRole("main").getByRole("link", { name: AUTH_TEXT.signUp }).click();
    await page.waitForURL((u) => u.pathname === "/register" && u.searchParams.get("redirect") === "/server/everything");
    // The address changes before a slow machine has drawn the new page, whose fields share the
    // login form's labels: type only once the sign-up form is there.
    await page.getByRole("heading", { name: AUTH_TEXT.registerTitle("Switchboard") }).waitFor();
    const email = "on-the-way@example.com";
    const started = Date.now();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("on-the-way-1");
    await page.getByRole("button", { name: AUTH_TEXT.createAccount }).click();
    await page.getByRole("heading", { name: AUTH_TEXT.checkEmail }).waitFor();
    const mail = await waitForMail(inject("mailDir"), email, { after: started - 1000 });
    await page.goto(mail.text.match(/https?:\/\/\S+/)![0]);
    await page.getByRole("heading", { name: "Email confirmed" }).waitFor();
    await page.getByRole("link", { name: "Go to login" }).click();
    await page.waitForURL((u) => u.pathname === "/login" && u.searchParams.get("redirect") === "/server/everything");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("on-the-way-1");
    await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/server/everything");
    await page.getByRole("region", { name: "Deployment" }).getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
    expect(problems).toEqual([]);
  }, 60_000);

  it("a redirect to another site is dropped along the way", async () => {
    const { page } = await newPage(env.browser);
    await page.goto("/register?redirect=%2F%2Fevil.example%2Fx");
    const email = "not-led-away@example.com";
    const started = Date.now();
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("not-led-away-1");
    await page.getByRole("button", { name: AUTH_TEXT.createAccount }).click();
    await page.getByRole("heading", { name: AUTH_TEXT.checkEmail }).waitFor();
    const link = new URL((await waitForMail(inject("mailDir"), email, { after: started - 1000 })).text.match(/https?:\/\/\S+/)![0]);
    expect(link.searchParams.get("redirect")).toBeNull();
    await logIn(page, email, "wrong-password-1");
    expect(new URL(page.url()).origin).toBe(new URL(link).origin);
  }, 60_000);
});
