import type { Locator, Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { REQUEST_LOG_TEXT } from "~/shared/request-log.js";
import { DEFINITION_TEXT } from "~/shared/definitions.js";
import { browserWithFixtureRepo, newPage, problemsOf } from "./browser.js";
import { PLAYGROUND_TEXT } from "~/web/components/playground/text.js";
import { confirmDialog, registerConfirmAndLogIn, registerOwnedServer } from "./helpers.js";

// The playground (issue 18): in Chromium, the owner of a running server-everything tries its
// tools, prompts and resources through the gateway with the page's own sign-in, and sees the
// results as a person would.

const env = browserWithFixtureRepo();

/** Picks an entry of the open tab's list by its machine name. */
async function pick(pg: Locator, list: string, name: string): Promise<void> {
  await pg
    .getByRole("list", { name: list })
    .getByRole("button")
    .filter({ has: pg.page().getByText(name, { exact: true }) })
    .click();
  // The heading is the name, then any hints (read-only, destructive).
  await pg
    .getByRole("heading", { name: new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}( |$)`) })
    .locator("visible=true")
    .waitFor();
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
    const { page } = await newPage(env.browser);
    await page.goto("/server/everything");
    await page.getByRole("region", { name: "Deployment" }).waitFor();
    expect(await page.getByTestId("playground").count()).toBe(0);
  });

  it("runs server-everything's tools, a prompt and resources, shows progress, cancels, and goes when the server stops", async () => {
    const { page } = await newPage(env.browser, { viewport: { width: 1280, height: 900 } });
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
    await result(pg)
      .getByText(/^Cancelled/)
      .waitFor();
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
    await result(pg)
      .getByText(/Everything Server - Features/)
      .waitFor();
    await pg
      .getByRole("list", { name: "Resources" })
      .getByRole("button", { name: /Dynamic Text Resource \(template\)/ })
      .click();
    await pg.getByLabel(/^resourceId/).fill("7");
    await run(pg, "Read");
    await result(pg)
      .getByText(/^Resource 7: This is a plaintext resource created at/)
      .waitFor();

    await pg.getByRole("tab", { name: /^Tools/ }).click();
    await pg.scrollIntoViewIfNeeded();
    await pg.screenshot({ path: "/tmp/i18/playground.png" });
    await pg.getByRole("tab", { name: /^Prompts/ }).click();
    await pg.screenshot({ path: "/tmp/i18/playground-prompts.png" });
    await pg.getByRole("tab", { name: /^Tools/ }).click();

    // The request log shows those calls, live, marked as the playground's, and none of their
    // arguments. They are the owner's own tries, not use: hidden until asked for.
    const log = page.getByTestId("request-log");
    const rows = log.getByTestId("request-log-row");
    await log.getByText(REQUEST_LOG_TEXT.empty).waitFor();
    expect(await rows.count()).toBe(0);
    await log.getByLabel(REQUEST_LOG_TEXT.showPlayground).check();
    const row = (name: string) => rows.filter({ has: page.getByRole("cell", { name, exact: true }) }).first();
    for (const name of [
      "echo",
      "get-sum",
      "trigger-long-running-operation",
      "get-tiny-image",
      "args-prompt",
      "demo://resource/static/document/features.md",
    ])
      await row(name).waitFor({ timeout: 15_000 });
    expect(await row("echo").textContent()).toContain("switchboard-playground");
    expect(await row("echo").textContent()).toContain(REQUEST_LOG_TEXT.playgroundBadge);
    expect(await row("echo").textContent()).toContain("tools/call");
    expect(await row("args-prompt").textContent()).toContain("prompts/get");
    expect(await row("demo://resource/static/document/features.md").textContent()).toContain("resources/read");
    // The call cancelled above is there too, as cancelled.
    expect(
      await rows
        .filter({ has: page.getByRole("cell", { name: "trigger-long-running-operation", exact: true }) })
        .filter({ hasText: "Cancelled" })
        .count(),
    ).toBe(1);
    const logText = (await log.textContent())!;
    for (const argument of ["from</b> the playground", "Paris", "Texas"]) expect(logText).not.toContain(argument);
    // Filtered by name, only that tool's calls are left.
    await log.getByLabel("Name").fill("get-sum");
    await expect.poll(async () => [...new Set(await rows.locator("td:nth-child(4)").allTextContents())]).toEqual(["get-sum"]);
    await log.getByLabel("Name").fill("");

    // A first deploy raises no false alarm: what the server lists by the clients' capabilities was
    // pinned at its first start, so the playground's listings are no change of definition.
    await page.reload();
    await page.getByText(DEFINITION_TEXT.none).waitFor({ timeout: 15_000 });

    // Stopping the deployment takes the playground away.
    await page.getByRole("region", { name: "Deployment" }).getByRole("button", { name: DEPLOY_TEXT.stop }).click();
    await confirmDialog(page, DEPLOY_TEXT.stop);
    await page.getByRole("region", { name: "Deployment" }).getByRole("button", { name: DEPLOY_TEXT.deploy, exact: true }).waitFor();
    expect(await page.getByTestId("playground").count()).toBe(0);
    expect(problems).toEqual([]);
  }, 240_000);

  it("renders a hostile server's output inert and bounded: HTML and script as text, no javascript:/data: links, no SVG, deep JSON cut; a 10 MB result neither hangs the page nor the platform", async () => {
    const { page } = await newPage(env.browser, { viewport: { width: 1280, height: 900 } });
    const problems = problemsOf(page);
    let sessionId = "";
    let mcpUrl = "";
    page.on("request", (r) => {
      const id = r.headers()["mcp-session-id"];
      if (id) [sessionId, mcpUrl] = [id, r.url()];
    });
    const email = `hostile-${Date.now()}@example.com`;
    await registerConfirmAndLogIn(page, email, "hostile-password-1");
    // The fixture server from a local git repository, registered and deployed as its owner would.
    const qn = await registerOwnedServer(page, "hostile", env.repo.url);
    await page.goto(`/server/${qn}`);
    await page.getByRole("region", { name: "Deployment" }).getByText("Running", { exact: true }).waitFor({ timeout: 120_000 });
    const pg = page.getByTestId("playground");
    await pg.getByText(/^Connected to/).waitFor({ timeout: 30_000 });

    await pick(pg, "Tools", "hostile_output");
    await run(pg);
    const out = result(pg);
    await out
      .getByText('<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script><a href="javascript:window.__pwned=1">click</a>', {
        exact: true,
      })
      .waitFor();
    // Nothing the server sent ran, became markup, a live link or an SVG image.
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await out.locator("script, iframe, object, embed").count()).toBe(0);
    expect(await out.locator('img[src="x"], img[src^="data:image/svg"]').count()).toBe(0);
    expect(
      await out
        .locator("a")
        .evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).protocol).filter((p) => p !== "http:" && p !== "https:")),
    ).toEqual([]);
    await out.getByText("javascript:window.__pwned=1", { exact: true }).waitFor();
    await out.getByText("This image type (image/svg+xml) is not shown.").waitFor();
    // 1,000 levels of structured content, shown cut short.
    await out.getByText("Shortened: deep or large parts are shown as …").waitFor();
    expect((await out.textContent())!.length).toBeLessThan(200_000);

    // 10 MB of text: shown cut to a readable size; the page answers at once meanwhile and after.
    await pick(pg, "Tools", "big_output");
    await pg.getByLabel(/^megabytes/).fill("10");
    const started = Date.now();
    await run(pg);
    await out
      .getByText(`Showing the first 100,000 of ${(10 * 1024 * 1024).toLocaleString("en-US")} characters.`)
      .waitFor({ timeout: 30_000 });
    expect(Date.now() - started).toBeLessThan(20_000);
    const t0 = Date.now();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r(null))));
    expect(Date.now() - t0).toBeLessThan(1000);
    expect((await out.textContent())!.length).toBeLessThan(200_000);
    // The platform carries on: the same server answers the next call.
    await pick(pg, "Tools", "echo");
    await pg.getByLabel(/^message/).fill("after the flood");
    await run(pg);
    await out.getByText("after the flood", { exact: true }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(problems).toEqual([]);

    // The gateway forgets the session (as after GATEWAY_SESSION_IDLE_MS, or a restart): the
    // playground says so and offers Retry, which connects again.
    const status = await page.evaluate(
      async ([u, id]) => (await fetch(u!, { method: "DELETE", headers: { "mcp-session-id": id! } })).status,
      [mcpUrl, sessionId],
    );
    expect(status).toBe(200);
    await pick(pg, "Tools", "echo");
    await run(pg);
    await pg.getByText(PLAYGROUND_TEXT.sessionLost).waitFor({ timeout: 15_000 });
    await pg.getByRole("button", { name: PLAYGROUND_TEXT.retry }).click();
    await pg.getByText(/^Connected to/).waitFor({ timeout: 30_000 });
    await pick(pg, "Tools", "echo");
    await pg.getByLabel(/^message/).fill("again");
    await run(pg);
    await out.getByText("again", { exact: true }).waitFor();
  }, 240_000);
});
