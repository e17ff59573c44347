import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TEXT, CHECK_TEXT, MY_SUBMISSIONS_TEXT, SUBMIT_TEXT } from "~/shared/catalog.js";
import { SANDBOX_TEXT } from "~/shared/deployments.js";
import { launchBrowser, newPage } from "./browser.js";
import { registerConfirmAndLogIn } from "./helpers.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe("submission and review in Chromium", () => {
  it("a user submits, an admin approves, and the server appears in a directory search", async () => {
    const submitter = await newPage(browser);
    const page = submitter.page;
    await page.goto("/servers/add");
    await page.getByText(SUBMIT_TEXT.authRequiredText).waitFor();

    await registerConfirmAndLogIn(page, `maker-${Date.now()}@example.com`, "maker-password-1");
    await page.getByRole("link", { name: "Add Server" }).first().click();
    await page.waitForURL((u) => u.pathname === "/servers/add");
    await page.getByRole("button", { name: SUBMIT_TEXT.submit }).click();
    await page.getByText(SUBMIT_TEXT.requiredFields).waitFor();

    await page.getByLabel("Server Name *").fill("Weather Station Zeta");
    expect(await page.getByLabel("Server ID *").getAttribute("placeholder")).toBe("weather-station-zeta");
    await page.getByLabel("Description *").fill("Forecasts and **live** readings from weather stations.");
    await page.getByLabel("Tags *").fill("weather, forecast");
    expect(await page.getByLabel("Category *").inputValue()).toBe("Data & Storage");
    expect(await page.getByLabel("Type *").inputValue()).toBe("Community");
    expect(await page.getByLabel("Source *").inputValue()).toBe("user_submitted");
    await page.getByLabel("Repository URL").fill("https://github.com/example/weather-zeta");
    await page.getByLabel("Key Name").fill("Weather API Key");
    await page.getByLabel("Environment Variable").fill("WEATHER_API_KEY");
    await page.getByLabel("Description", { exact: true }).fill("Key from the weather provider");
    await page.getByRole("button", { name: "Add Key" }).click();
    await page.getByText("Weather API Key (WEATHER_API_KEY)").waitFor();
    await page.getByRole("button", { name: SUBMIT_TEXT.submit }).click();
    await page.getByText(SUBMIT_TEXT.success).waitFor();
    await page.waitForURL((u) => u.pathname === "/", { timeout: 6000 });

    // Pending: not in the directory yet, and the submitter's own page says so.
    await page.goto("/?q=weather");
    await page.getByText("No servers match your search.").waitFor();
    await page.getByRole("button", { name: /^Account menu for / }).click();
    await page.getByRole("menuitem", { name: MY_SUBMISSIONS_TEXT.title }).click();
    await page.waitForURL((u) => u.pathname === "/submissions");
    const mine = page.getByTestId("my-submission").filter({ hasText: "Weather Station Zeta" });
    expect(await mine.getByTestId("submission-status").textContent()).toBe(MY_SUBMISSIONS_TEXT.status.pending);

    const reviewer = await newPage(browser);
    await registerConfirmAndLogIn(reviewer.page, "admin-e2e@example.com", "admin-password-1");
    // An admin finds the admin page in the user menu.
    await reviewer.page.getByRole("button", { name: "Account menu for admin-e2e" }).click();
    await reviewer.page.getByRole("menuitem", { name: "Admin" }).click();
    await reviewer.page.waitForURL((u) => u.pathname === "/admin/mcp-servers");
    await reviewer.page.getByRole("heading", { name: ADMIN_TEXT.title }).waitFor();
    // The operator's view of the hosting sandbox: the layer in force and each of the ten protections.
    const sandbox = reviewer.page.getByTestId("sandbox-status");
    await sandbox.getByRole("heading", { name: SANDBOX_TEXT.title }).waitFor();
    expect(await sandbox.locator("[data-testid^=guarantee-]").count()).toBe(10);
    const held = await sandbox.locator('[data-ok="true"]').count();
    await sandbox.getByText(SANDBOX_TEXT.protections(held, 10)).waitFor();
    await sandbox.getByText(held === 10 ? SANDBOX_TEXT.complete : SANDBOX_TEXT.adminsOnly).waitFor();
    const card = reviewer.page.locator('[data-server="weather-station-zeta"]');
    await card.getByText(ADMIN_TEXT.pendingBadge).waitFor();
    // What approving lets people run: here the repository, built, speaking stdio, with its key; and the entry's page a click away.
    const runs = card.getByRole("region", { name: ADMIN_TEXT.whatRuns });
    await runs.getByText("https://github.com/example/weather-zeta").waitFor();
    await runs.getByText("WEATHER_API_KEY").waitFor();
    await runs.getByText("stdio").waitFor();
    expect(await card.getByRole("link", { name: "Weather Station Zeta" }).getAttribute("href")).toBe("/server/weather-station-zeta");
    await card.screenshot({ path: "test-results/admin-card-what-runs.png" });
    await card.getByRole("button", { name: "Approve" }).click();
    // It leaves the pending list (other tests' submissions may be pending meanwhile: the count is not ours to assert).
    await reviewer.page
      .getByRole("tabpanel")
      .locator('[data-server="weather-station-zeta"]')
      .getByText(ADMIN_TEXT.pendingBadge)
      .waitFor({ state: "detached" });
    await reviewer.page.getByRole("tab", { name: /Approved Servers/ }).click();
    await reviewer.page.locator('[data-server="weather-station-zeta"]').getByText(ADMIN_TEXT.approvedBadge, { exact: true }).waitFor();

    await page.goto("/submissions");
    expect(await mine.getByTestId("submission-status").textContent()).toBe(MY_SUBMISSIONS_TEXT.status.approved);
    await page.screenshot({ path: "test-results/my-submissions.png", fullPage: true });
    await page.goto("/?q=wether");
    await page.getByRole("link", { name: /Weather Station Zeta/ }).click();
    await page.waitForURL((u) => u.pathname === "/server/weather-station-zeta");
    await page.getByText("WEATHER_API_KEY").first().waitFor();
    await submitter.context.close();
    await reviewer.context.close();
  });

  it("an admin checks an entry now, sees the tools it listed, and approves them: then everyone sees them", async () => {
    const reviewer = await newPage(browser);
    const page = reviewer.page;
    // The admin of the test above.
    await page.goto("/login");
    await page.getByLabel("Email").fill("admin-e2e@example.com");
    await page.getByLabel("Password").fill("admin-password-1");
    await page.getByRole("button", { name: "Log in", exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/");

    // A new entry (newest first on the admin page): the reference server from npm.
    const id = `check-me-${Date.now()}`;
    const made = await page.evaluate(async (id) => {
      const r = await fetch("/api/mcp-servers", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          id,
          name: "Check Me",
          description: "Checked in the e2e test",
          category: "Featured",
          type: "Reference",
          source: "official",
          tags: ["check"],
          npx_command: "npx -y @modelcontextprotocol/server-everything",
        }),
      });
      return r.status;
    }, id);
    expect(made).toBe(201);
    const visitor = await newPage(browser);
    await visitor.page.goto(`/server/${id}`);
    await visitor.page.getByText("Its tools are listed here once an administrator has checked them.").waitFor();

    await page.goto("/admin/mcp-servers");
    await page.getByRole("tab", { name: /Approved Servers/ }).click();
    const card = page.locator(`[data-server="${id}"]`);
    await card.getByRole("button", { name: CHECK_TEXT.checkNow }).click();
    await card.getByTestId("tools-changed").getByText(CHECK_TEXT.firstListing).waitFor({ timeout: 120_000 });
    await card
      .getByTestId("tools-changed")
      .getByText(/\becho\b/)
      .waitFor();
    await card.getByRole("button", { name: ADMIN_TEXT.acceptTools }).click();
    await card.getByTestId("tools-changed").waitFor({ state: "detached" });

    await visitor.page.reload();
    await visitor.page.getByRole("region", { name: "Tools" }).getByText("echo", { exact: true }).waitFor();
    await reviewer.context.close();
    await visitor.context.close();
  }, 180_000);
});
