// A deployment's URL is a promise (issue 52): Stop asks first and ends the deployment, but deploying
// the same server again gives the same URL, and an SDK client configured with it carries on; on the
// Free plan a second deploy says beforehand which deployment it puts to sleep, the one put to sleep
// says for whom, and a wake that cannot happen is a sentence with links, in the panel and to the
// client, never raw JSON.
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DEPLOY_TEXT, SLEEP_TEXT } from "~/shared/deployments.js";
import { GATEWAY_TEXT } from "~/server/features/gateway/text.js";
import { sdkClient, textOf } from "../support/gateway.js";
import { appUrl, browserWithFixtureRepo, newPage, problemsOf } from "./browser.js";
import { confirmDialog, registerConfirmAndLogIn, registerOwnedServer } from "./helpers.js";

const env = browserWithFixtureRepo();

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

/** The panel of the server page `qn`, once its deployment is running; returns its URL. */
async function runningUrl(page: Page, qn: string): Promise<string> {
  await page.goto(`/server/${qn}`);
  const panel = page.getByRole("region", { name: "Deployment" });
  await panel.getByTestId("deployment-status").getByText("Running", { exact: true }).waitFor({ timeout: 90_000 });
  return (await panel.locator("code").first().textContent())!.trim();
}

/** Deploys the owned server `qn` from the test's fixture repository, as the page's user (the panel's Deploy would build its registered GitHub URL). */
const deployFixture = (page: Page, qn: string) =>
  page.evaluate(
    async ({ qn, repositoryUrl }) => {
      const r = await fetch(`/api/deploy/${qn}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ repositoryUrl, env: {} }),
      });
      if (r.status !== 202) throw new Error(`deploy: ${r.status} ${await r.text()}`);
    },
    { qn, repositoryUrl: env.repo.url },
  );

/** The gateway's answer to a client of a URL with no running deployment, as the SDK reports it. */
async function refusal(url: string, key: string): Promise<string> {
  const e = await sdkClient(url, key).then(
    async (c) => (await c.close(), "connected"),
    (err: unknown) => String(err),
  );
  return e;
}

describe("a deployment's URL is kept", () => {
  it("Stop asks first, ends the deployment, and deploying again gives the same URL; the client carries on", async () => {
    const { page } = await newPage(env.browser, { viewport: { width: 1280, height: 900 } });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, `stable-${Date.now()}@example.com`, "stable-password-1");
    const qn = await registerOwnedServer(page, "stable", env.repo.url);
    const url = await runningUrl(page, qn);
    const key = await mcpKey(page, "stable client");
    const client = await sdkClient(url, key);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "before" } }))).toContain("before");
    await client.close();

    // Stop asks first and says what stops working; Cancel leaves it running.
    const panel = page.getByRole("region", { name: "Deployment" });
    await panel.getByRole("button", { name: DEPLOY_TEXT.stop }).click();
    const dialog = page.getByRole("alertdialog");
    await dialog.getByText(DEPLOY_TEXT.stopText).waitFor();
    await page.screenshot({ path: "test-results/stop-confirm-1280.png" });
    await dialog.getByRole("button", { name: DEPLOY_TEXT.cancel }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await panel.getByTestId("deployment-status").textContent()).toBe("Running");
    await panel.getByRole("button", { name: DEPLOY_TEXT.stop }).click();
    await confirmDialog(page, DEPLOY_TEXT.stop);
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor({ timeout: 30_000 });

    // Stopped: the owner's client is told so, and how to bring it back.
    expect(await refusal(url, key)).toContain(GATEWAY_TEXT.stopped);

    // Deployed again: the same URL, and a client configured with it carries on.
    await deployFixture(page, qn);
    expect(await runningUrl(page, qn)).toBe(url);
    const again = await sdkClient(url, key);
    expect(textOf(await again.callTool({ name: "echo", arguments: { message: "after" } }))).toContain("after");
    await again.close();
    expect(problems.filter((p) => !/status of (404|503)/.test(p))).toEqual([]);
  }, 240_000);

  it("on Free a second deploy says first which one it puts to sleep; a wake that cannot happen says what to do", async () => {
    const { page } = await newPage(env.browser, { viewport: { width: 390, height: 844 } });
    await registerConfirmAndLogIn(page, `lru-${Date.now()}@example.com`, "lru-password-1");
    const first = await registerOwnedServer(page, "first", env.repo.url);
    const firstUrl = await runningUrl(page, first);
    const key = await mcpKey(page, "lru client");
    const second = await registerOwnedServer(page, "second");

    // The first was just used: the second's panel says a deploy has no room now, with where to go.
    await page.goto(`/server/${second}`);
    const outlook = page.getByTestId("plan-outlook");
    await outlook.getByText(SLEEP_TEXT.noRoom("Free", 1)).waitFor();
    expect(await outlook.getByRole("link", { name: "My deployments" }).count()).toBe(1);

    // Once the first has been idle (no request, no stream for 15 s), the panel names it before the deploy.
    await expect
      .poll(async () => (await page.reload(), outlook.textContent()), { timeout: 60_000, interval: 3000 })
      .toContain(SLEEP_TEXT.deploySleeps("Free", 1, [first]));
    await page.screenshot({ path: "test-results/deploy-sleeps-390.png", fullPage: true });
    await deployFixture(page, second);
    const secondUrl = await runningUrl(page, second);
    // A client keeps the second in use.
    const busy = await sdkClient(secondUrl, key);
    expect(textOf(await busy.callTool({ name: "echo", arguments: { message: "busy" } }))).toContain("busy");
    const inUse = setInterval(() => void busy.ping().catch(() => undefined), 2000);

    // The first says why it sleeps, and that waking it cannot be done while the second is in use;
    // its playground (which wakes it when opened) shows the refusal as a sentence with links, not JSON.
    await page.goto(`/server/${first}`);
    const firstPanel = page.getByRole("region", { name: "Deployment" });
    await firstPanel.getByText(SLEEP_TEXT.sleptFor(second)).waitFor();
    await firstPanel.getByTestId("plan-outlook").getByText(SLEEP_TEXT.noRoom("Free", 1)).waitFor();
    const base = appUrl();
    const refused = SLEEP_TEXT.wakeRefused("Free", 1, `${base}/deployments`, `${base}/subscription`);
    const alert = page.getByTestId("playground").getByRole("alert");
    await alert.getByText(refused).waitFor({ timeout: 60_000 });
    expect(await alert.textContent()).not.toContain('{"jsonrpc"');
    expect(await alert.getByRole("link", { name: "Subscription" }).count()).toBe(1);
    await page.screenshot({ path: "test-results/slept-for-390.png", fullPage: true });

    // A client of the sleeping one gets the same sentence, with the pages to go to.
    expect(await refusal(firstUrl, key)).toContain(refused);
    clearInterval(inUse);
    await busy.close();
  }, 300_000);
});
