import { describe, expect, it } from "vitest";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { browserWithFixtureRepo, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn, registerOwnedServer } from "./helpers.js";

// Choosing the tools a deployment exposes (issue 20, item 3), in Chromium: the owner unticks a
// tool, saves, and the playground (a client like any other) no longer lists it, at once.

const env = browserWithFixtureRepo();

describe("exposed tools in Chromium", () => {
  it("the owner hides a tool with the keyboard and the playground no longer offers it", async () => {
    const { page } = await newPage(env.browser, { viewport: { width: 1280, height: 1000 } });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, `tools-${Date.now()}@example.com`, "tools-password-1");
    const qn = await registerOwnedServer(page, "fixture", env.repo.url);
    await page.goto(`/server/${qn}`);
    await page.getByRole("region", { name: "Deployment" }).getByText("Running", { exact: true }).waitFor({ timeout: 120_000 });
    // Its tools are known once it ran: the page shows them to choose from.
    await page.reload();
    const card = page.getByTestId("tool-selection");
    const echo = card.getByRole("checkbox", { name: "echo" });
    await echo.waitFor({ timeout: 30_000 });
    const total = await card.getByRole("checkbox").count();
    expect(total).toBeGreaterThan(5);
    await card.getByText(DEPLOY_TEXT.toolsCount(total, total)).waitFor();
    const pg = page.getByTestId("playground");
    await pg.getByText(/^Connected to/).waitFor({ timeout: 30_000 });
    const listed = () => pg.getByRole("list", { name: "Tools" }).getByText("echo", { exact: true }).count();
    expect(await listed()).toBe(1);

    await echo.focus();
    await page.keyboard.press("Space");
    expect(await echo.isChecked()).toBe(false);
    await card.getByText(DEPLOY_TEXT.toolsCount(total - 1, total)).waitFor();
    await card.getByRole("button", { name: DEPLOY_TEXT.toolsSave }).click();
    await card.getByText(DEPLOY_TEXT.toolsSaved).waitFor();
    // The playground beside it is told the list changed and lists again, without a reload.
    await expect.poll(listed, { timeout: 10_000, interval: 100 }).toBe(0);
    await pg.getByRole("list", { name: "Tools" }).getByText("add", { exact: true }).waitFor();

    // Kept: after a reload too.
    await page.reload();
    await pg.getByText(/^Connected to/).waitFor({ timeout: 30_000 });
    await pg.getByRole("list", { name: "Tools" }).getByText("add", { exact: true }).waitFor();
    expect(await listed()).toBe(0);
    expect(await page.getByTestId("tool-selection").getByRole("checkbox", { name: "echo" }).isChecked()).toBe(false);
    expect(problems).toEqual([]);
  }, 240_000);
});
