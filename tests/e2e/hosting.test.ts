import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOY_TEXT, MACHINE_TEXT } from "~/shared/deployments.js";
import { API_KEY_TEXT } from "~/shared/publishers.js";
import { sdkClient, textOf } from "../support/gateway.js";
import { launchBrowser, newPage, problemsOf } from "./browser.js";
import { confirmDialog, registerConfirmAndLogIn } from "./helpers.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe("the Deployment panel in Chromium", () => {
  it("signed out, Deploy asks to log in and comes back to the server", async () => {
    const { page } = await newPage(browser);
    await page.goto("/server/everything");
    await page.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/login" && u.searchParams.get("redirect") === "/server/everything");
  });

  it("deploys server-everything, shows it running with its URL, lists its tools, and stops it", async () => {
    const { context, page } = await newPage(browser);
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, `deployer-${Date.now()}@example.com`, "deploy-password-1");
    await page.goto("/server/everything");
    const panel = page.getByRole("region", { name: "Deployment" });
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();

    // Polled every 5 s: queued/installing/starting, then Running with a green dot.
    const status = panel.getByTestId("deployment-status");
    await status.waitFor();
    await panel.getByText("Running", { exact: true }).waitFor({ timeout: 120_000 });
    expect(await panel.locator(".bg-green-500").count()).toBe(1);
    // Which machine holds it is for admins only.
    expect(await panel.getByTestId("deployment-runner").count()).toBe(0);
    const url = (await panel.locator("code").first().textContent())!;
    expect(url).toMatch(/^http:\/\/localhost:\d+\/[0-9a-f]{32}\/mcp$/);
    const copyUrl = panel.getByRole("button", { name: "Copy" }).first();
    await copyUrl.click();
    await panel.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    await panel.getByRole("button", { name: "Copied" }).waitFor({ state: "detached", timeout: 2000 }); // the icon lasts 1 s

    // How to connect a client: Claude Code's command by default, Cursor's config a click away.
    const connect = panel.getByTestId("hosted-connect");
    expect(await connect.locator("pre").textContent()).toBe(
      `claude mcp add --transport http everything ${url} --header "Authorization: Bearer <your API key>"`,
    );
    await connect.getByRole("radio", { name: "Cursor" }).click();
    expect(JSON.parse((await connect.locator("pre").textContent())!)).toEqual({
      mcpServers: { everything: { url, headers: { Authorization: "Bearer <your API key>" } } },
    });

    // The URL works as shown, for an MCP client holding a key made on the API Keys page: the
    // 'mcp' scope only (the default), for this server only, for 30 days.
    await connect.getByRole("link", { name: "create one for this server only" }).click();
    await page.waitForURL((u) => u.pathname === "/servers/apikeys" && u.searchParams.get("for") === "everything");
    expect(await page.getByLabel("New key name").inputValue()).toBe("everything client");
    expect(await page.getByRole("checkbox", { name: /^mcp/ }).isChecked()).toBe(true);
    expect(await page.getByRole("checkbox", { name: /^deploy/ }).isChecked()).toBe(false);
    expect(await page.getByRole("checkbox", { name: /^servers/ }).isChecked()).toBe(false);
    expect(
      await page.getByRole("group", { name: API_KEY_TEXT.resourcesLabel }).getByRole("checkbox", { name: "everything" }).isChecked(),
    ).toBe(true);
    expect(await page.getByLabel(API_KEY_TEXT.expiryLabel).inputValue()).toBe("90");
    await page.getByLabel(API_KEY_TEXT.expiryLabel).selectOption("30");
    await page.getByRole("button", { name: "Generate API Key" }).click();
    // Made from the server page, it goes back there, filled into the snippets (way-in.test.ts).
    await page.waitForURL((u) => u.pathname === "/server/everything");
    const apiKey = (await panel.getByTestId("new-key-filled").locator("code").textContent())!.trim();
    await page.goto("/servers/apikeys");
    const row = page.getByRole("listitem").filter({ hasText: "everything client" });
    const scopes = row.getByTestId("key-scopes");
    // The list shows the new key once the page has read the keys again.
    await scopes.getByTestId("key-scope").first().waitFor();
    expect(await scopes.getByTestId("key-scope").allTextContents()).toEqual(["mcp"]);
    await scopes.getByText("only everything").waitFor();
    await row.getByText(/Expires /).waitFor();
    await row.getByText("Never used").waitFor();
    await page.screenshot({ path: "test-results/api-keys-scoped.png", fullPage: true });

    const client = await sdkClient(url, apiKey);
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "from the page's URL" } }))).toContain("from the page's URL");
    await client.close();
    // The same key cannot touch the account or the deployments' settings.
    const rest = await fetch(new URL("/api/deployments", url), { headers: { authorization: `Bearer ${apiKey}` } });
    expect(rest.status).toBe(403);
    expect(((await rest.json()) as { error: string }).error).toBe(API_KEY_TEXT.missingScope("deploy"));
    // Its owner sees that it was used.
    await page.reload();
    await page.getByRole("listitem").filter({ hasText: "everything client" }).getByText("Last used just now").waitFor();
    await page.goto("/server/everything");

    await panel.getByRole("button", { name: "Show output" }).click();
    await panel.getByTestId("deployment-logs").waitFor();

    // The tools it offers are on the page for everyone now.
    await page.reload();
    const tools = page.getByRole("region", { name: "Tools" });
    await tools.getByText("echo", { exact: true }).waitFor();
    await page.screenshot({ path: "test-results/hosting-running.png", fullPage: true });

    // 'My deployments', from the user menu: the deployment with its status, URL and last request; stopped from there.
    await page.getByRole("button", { name: /^Account menu for / }).click();
    await page.getByRole("menuitem", { name: "My deployments" }).click();
    await page.waitForURL((u) => u.pathname === "/deployments");
    await page.getByRole("heading", { name: "My deployments" }).waitFor();
    const mine = page.getByTestId("my-deployment");
    expect(await mine.count()).toBe(1);
    expect(await mine.getByTestId("my-deployment-status").textContent()).toBe("Running");
    expect(await mine.locator("code").textContent()).toBe(url);
    await mine.getByText(/Last request: (just now|1 minute ago)/).waitFor();
    expect(await mine.getByRole("link", { name: "everything" }).getAttribute("href")).toBe("/server/everything");
    await page.screenshot({ path: "test-results/my-deployments.png", fullPage: true });
    await mine.getByRole("button", { name: DEPLOY_TEXT.stop }).click();
    await confirmDialog(page, DEPLOY_TEXT.stop);
    await page.getByText("You have no deployments yet.").waitFor();
    await page.goto("/server/everything");
    await page.getByRole("region", { name: "Deployment" }).getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
    expect(problems).toEqual([]);
  }, 180_000);

  it("shows an admin which runner holds the deployment, in the panel and the API", async () => {
    const { page } = await newPage(browser);
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, "ops-e2e@example.com", "ops-password-1");
    await page.goto("/server/everything");
    const panel = page.getByRole("region", { name: "Deployment" });
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();
    await panel.getByText("Running", { exact: true }).waitFor({ timeout: 120_000 });
    const shown = (await panel.getByTestId("deployment-runner").textContent())!.trim();
    const [fromApi] = await page.evaluate(async () => (await (await fetch("/api/deployments")).json()) as { runner?: string | null }[]);
    expect(fromApi!.runner).toBeTruthy();
    expect(shown).toBe(MACHINE_TEXT.on(fromApi!.runner!));
    await page.screenshot({ path: "test-results/hosting-admin-runner.png", fullPage: false });
    await panel.getByRole("button", { name: DEPLOY_TEXT.stop }).click();
    await confirmDialog(page, DEPLOY_TEXT.stop);
    await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
    expect(problems).toEqual([]);
  }, 180_000);
});
