import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPLOY_TEXT } from "../../src/shared/deployments.js";
import { launchBrowser, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn } from "./helpers.js";

// The playground (issue 18): in Chromium, the owner of a running server-everything tries its
// tools, prompts and resources through the gateway with the page's own sign-in, and sees the
// results as a person would.

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

/** Picks an entry of the open tab's list by its machine name. */
async function pick(pg: Locator, list: string, name: string): Promise<void> {
  await pg.getByRole("list", { name: list }).getByRole("button").filter({ has: pg.page().getByText(name, { exact: true }) }).click();
  // The heading is the name, then any hints (read-only, destructive).
  await pg.getByRole("heading", { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}( |$)`) }).locator("visible=true").waitFor();
}

const result = (pg: Locator) => pg.getByTestId("playground-result").locator("visible=true");
const run = (pg: Locator, label = "Run") => pg.getByRole("button", { name: label, exact: true }).locator("visible=true").click();

async function deployEverything(page: Page): Promise<Locator> {
  await page.goto("/server/everything");
  const panel = page.getByRole("region", { name: "Deployment" });
  await panel.getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).click();
  await panel.getByText("Running", { exact: true }).waitFor({ timeout: 120_000 });
  const pg = page.getByTestId("playground");
  await pg.getByRole("tab", { name: /^Tools/ }).waitFor({ timeout: 30_000 });
  return pg;
}

describe("the playground in Chromium", () => {
  it("is not there for a visitor who is signed out", async () => {
    const { page } = await newPage(browser);
    await page.goto("/server/everything");
    await page.getByRole("region", { name: "Deployment" }).waitFor();
    expect(await page.getByTestId("playground").count()).toBe(0);
  });

  it("runs server-everything's tools, a prompt and resources, shows progress, cancels, and goes when the server stops", async () => {
    const { page } = await newPage(browser, { viewport: { width: 1280, height: 900 } });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, `playground-${Date.now()}@example.com`, "playground-password-1");
    const pg = await deployEverything(page);
    expect(await pg.getByRole("heading", { name: "Playground" }).isVisible()).toBe(true);
    await pg.getByText(/^Connected to/).waitFor();

    // echo: the form has the tool's one required field; Run with it empty says so, without a call.
    await pick(pg, "Tools", "echo");
    await run(pg);
    await pg.getByText("Required", { exact: true }).waitFor();
    expect(await result(pg).count()).toBe(0);
    await pg.getByLabel(/^message/).fill("hello <b>from</b> the playground");
    await run(pg);
    await result(pg).getByText("Echo: hello <b>from</b> the playground", { exact: true }).waitFor();
    expect(await pg.getByTestId("playground-duration").textContent()).toMatch(/^\d[\d,]* ms$/);

    // get-sum: numbers typed as text, sent as numbers; Ctrl+Enter runs it.
    await pick(pg, "Tools", "get-sum");
    await pg.getByLabel(/^a\b/).fill("2.5");
    await pg.getByLabel(/^b\b/).fill("4");
    await pg.getByLabel(/^b\b/).press("Control+Enter");
    await result(pg).getByText("The sum of 2.5 and 4 is 6.5.", { exact: true }).waitFor();

    // The long-running operation reports progress while it runs, then its result.
    await pick(pg, "Tools", "trigger-long-running-operation");
    expect(await pg.getByLabel(/^duration/).inputValue()).toBe("10"); // the schema's default, prefilled
    await pg.getByLabel(/^duration/).fill("4");
    await pg.getByLabel(/^steps/).fill("4");
    await run(pg);
    const progress = pg.getByTestId("playground-progress");
    await progress.getByText("1 of 4").waitFor();
    await progress.getByText("2 of 4").waitFor();
    const bar = progress.getByRole("progressbar");
    expect(Number(await bar.getAttribute("aria-valuenow"))).toBeGreaterThanOrEqual(2);
    await result(pg).getByText("Long running operation completed. Duration: 4 seconds, Steps: 4.").waitFor({ timeout: 15_000 });
    expect(await progress.count()).toBe(0);

    // Cancel: the call stops at once and says so; the session still works afterwards.
    await pg.getByLabel(/^duration/).fill("60");
    await pg.getByLabel(/^steps/).fill("60");
    await run(pg);
    await progress.getByText("1 of 60").waitFor();
    await pg.getByRole("button", { name: "Cancel" }).click();
    await result(pg).getByText(/^Cancelled/).waitFor();
    await pg.getByText("Cancelled", { exact: true }).waitFor();

    // get-tiny-image: a PNG the browser decoded.
    await pick(pg, "Tools", "get-tiny-image");
    await run(pg);
    const img = result(pg).locator("img");
    await img.waitFor();
    expect(await img.getAttribute("src")).toMatch(/^data:image\/png;base64,/);
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBeGreaterThan(0);
    await result(pg).getByText("The image above is the MCP logo.").waitFor();

    // A prompt with arguments: the required one is checked, then its messages show.
    await pg.getByRole("tab", { name: /^Prompts/ }).click();
    await pick(pg, "Prompts", "args-prompt");
    await run(pg, "Get prompt");
    await pg.getByText("Fill in the required arguments.").waitFor();
    await pg.getByLabel(/^city/).fill("Paris");
    await pg.getByLabel(/^state/).fill("Texas");
    await run(pg, "Get prompt");
    await result(pg).getByText("What's weather in Paris, Texas?", { exact: true }).waitFor();
    expect(await result(pg).getByText("user", { exact: true }).count()).toBe(1);

    // Resources: a listed one read as it is, and a template filled in.
    await pg.getByRole("tab", { name: /^Resources/ }).click();
    await pick(pg, "Resources", "features.md");
    await run(pg, "Read");
    await result(pg).getByText(/Everything Server - Features/).waitFor();
    await pg.getByRole("list", { name: "Resources" }).getByRole("button", { name: /Dynamic Text Resource \(template\)/ }).click();
    await pg.getByLabel(/^resourceId/).fill("7");
    await run(pg, "Read");
    await result(pg).getByText(/^Resource 7: This is a plaintext resource created at/).waitFor();

    await pg.getByRole("tab", { name: /^Tools/ }).click();
    await pg.scrollIntoViewIfNeeded();
    await pg.screenshot({ path: "/tmp/i18/playground.png" });
    await pg.getByRole("tab", { name: /^Prompts/ }).click();
    await pg.screenshot({ path: "/tmp/i18/playground-prompts.png" });
    await pg.getByRole("tab", { name: /^Tools/ }).click();

    // The request log shows those calls, live, from the playground as a client, and none of their arguments.
    const log = page.getByTestId("request-log");
    const rows = log.getByTestId("request-log-row");
    for (const name of ["echo", "get-sum", "trigger-long-running-operation", "get-tiny-image", "args-prompt"]) {
      await rows.filter({ has: page.getByRole("cell", { name, exact: true }) }).first().waitFor({ timeout: 15_000 });
    }
    const logText = (await log.textContent())!;
    expect(logText).toContain("switchboard-playground");
    expect(logText).toContain("tools/call");
    expect(logText).toContain("prompts/get");
    expect(logText).toContain("resources/read");
    for (const argument of ["from</b> the playground", "Paris", "Texas", "2.5"]) expect(logText).not.toContain(argument);
    // Filtered by name, only that tool's calls are left.
    await log.getByLabel("Name").fill("get-sum");
    await expect.poll(async () => [...new Set(await rows.locator("td:nth-child(4)").allTextContents())]).toEqual(["get-sum"]);
    await log.getByLabel("Name").fill("");

    // Stopping the deployment takes the playground away.
    await page.getByRole("region", { name: "Deployment" }).getByRole("button", { name: DEPLOY_TEXT.stop }).click();
    await page.getByRole("region", { name: "Deployment" }).getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
    expect(await page.getByTestId("playground").count()).toBe(0);
    expect(problems).toEqual([]);
  }, 240_000);
});
