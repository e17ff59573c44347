import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, newPage, problemsOf } from "./browser.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe("the directory in Chromium", () => {
  it("searches with a typo, filters by category, opens a server and copies its configuration", async () => {
    const { page, context } = await newPage(browser);
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto("/");
    await page.getByRole("searchbox", { name: "Search servers" }).fill("githb");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL((u) => u.searchParams.get("q") === "githb");
    await page
      .getByRole("link", { name: /GitHub/ })
      .first()
      .waitFor();

    await page.getByRole("link", { name: "Communication", exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get("category") === "Communication");
    await page.getByText("No servers match your search.").waitFor();
    await page.getByRole("link", { name: "All", exact: true }).click();
    await page.waitForURL((u) => !u.searchParams.get("category"));

    await page.getByRole("link", { name: /^GitHub Reference/ }).click();
    await page.waitForURL((u) => u.pathname === "/server/github");
    await page.getByRole("heading", { name: "GitHub", level: 1 }).waitFor();
    await page.getByRole("tab", { name: "Claude Code" }).click();
    await page.getByRole("tabpanel").getByRole("button", { name: "Copy" }).click();
    await page.getByRole("tabpanel").getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toMatch(/^claude mcp add github -e 'GITHUB_PERSONAL_ACCESS_TOKEN=/);
    // The confirmation lasts about a second.
    await page.getByRole("tabpanel").getByRole("button", { name: "Copy" }).waitFor({ timeout: 3000 });

    // The client tabs from the keyboard: arrows move along (and wrap), Home and End jump.
    const selected = () => page.getByRole("tab", { selected: true }).textContent();
    const focused = () => page.evaluate(() => document.activeElement?.textContent);
    await page.getByRole("tab", { name: "Claude Code" }).focus();
    await page.keyboard.press("ArrowRight");
    expect([await selected(), await focused()]).toEqual(["Cursor", "Cursor"]);
    await expect.poll(() => page.getByRole("tabpanel").textContent()).toContain("~/.cursor/mcp.json");
    await page.keyboard.press("End");
    expect(await selected()).toBe("VS Code");
    await page.keyboard.press("ArrowRight");
    expect([await selected(), await focused()]).toEqual(["Claude Desktop", "Claude Desktop"]);
    await page.keyboard.press("ArrowLeft");
    expect(await selected()).toBe("VS Code");
    await page.keyboard.press("Home");
    expect(await selected()).toBe("Claude Desktop");
    // One tab in the page's tab order: Tab leaves the tablist for the panel.
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("tabpanel");

    await page.getByRole("heading", { name: "Related Servers" }).waitFor();
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });
});
