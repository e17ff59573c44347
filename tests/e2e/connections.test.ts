import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONNECTION_TEXT } from "~/shared/connections.js";
import { canCreateTestHosts, type TestHosts } from "../support/netns.js";
import { E2E_REMOTE_HOST, startEverything } from "../support/remote-upstreams.js";
import { appUrl, launchBrowser, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn } from "./helpers.js";

// Connecting a remote server by URL, in Chromium with the keyboard: server-everything speaks
// streamable HTTP on a test host; the connection runs, and its page offers the playground.

const why = await canCreateTestHosts();
let browser: Browser;
let upstream: TestHosts;

beforeAll(async () => {
  if (why) return;
  // The test host first: Chromium starts once the machine's network has its new link.
  upstream = await startEverything("streamableHttp", E2E_REMOTE_HOST, 7821);
  browser = await launchBrowser();
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await upstream?.close();
});

describe.skipIf(why)(`Connections in Chromium${why ? ` (skipped: ${why})` : ""}`, () => {
  it("connects a server by URL from the Connections page, reached from the user menu, and uses it in the playground", async () => {
    const { page } = await newPage(browser, { viewport: { width: 1280, height: 1000 } });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, `connect-${Date.now()}@example.com`, "connect-password-1");
    await page.getByRole("button", { name: /Account menu/ }).click();
    await page.getByRole("menuitem", { name: "Connections" }).click();
    await page.getByRole("heading", { name: CONNECTION_TEXT.title, level: 1 }).waitFor();
    await page.getByText(CONNECTION_TEXT.none).waitFor();

    // A bad URL is refused with the reason, and nothing is lost of what was typed.
    await page.getByLabel(CONNECTION_TEXT.nameLabel).fill("everything");
    await page.getByLabel(CONNECTION_TEXT.urlLabel).fill("https://127.0.0.1/mcp");
    await page.getByLabel(CONNECTION_TEXT.urlLabel).press("Enter");
    await page.getByText(CONNECTION_TEXT.refusedAddress("127.0.0.1")).waitFor();
    expect(await page.getByLabel(CONNECTION_TEXT.nameLabel).inputValue()).toBe("everything");

    await page.getByLabel(CONNECTION_TEXT.urlLabel).fill(`http://${E2E_REMOTE_HOST}:7821/mcp`);
    await page.getByLabel(CONNECTION_TEXT.headersLabel).fill("X-Trace: e2e-value");
    await page.getByLabel(CONNECTION_TEXT.urlLabel).press("Enter");
    await page.getByText(CONNECTION_TEXT.connected).waitFor();
    const row = page.getByTestId("connection");
    await row.getByText("sends X-Trace").waitFor();
    expect(await page.content()).not.toContain("e2e-value");
    await expect
      .poll(async () => (await page.reload(), await row.getByTestId("connection-status").textContent()), {
        timeout: 60_000,
        interval: 1000,
      })
      .toBe("Running");
    await page.screenshot({ path: "/tmp/connections.png", fullPage: true });

    // The name of one that runs is taken: said under Name, with and without scripts.
    const nameTaken = async (p: Page) => {
      await p.getByLabel(CONNECTION_TEXT.nameLabel).fill("everything");
      await p.getByLabel(CONNECTION_TEXT.urlLabel).fill(`http://${E2E_REMOTE_HOST}:7821/mcp`);
      await p.getByRole("form", { name: CONNECTION_TEXT.byUrl }).getByRole("button", { name: CONNECTION_TEXT.connect }).click();
      const input = p.getByLabel(CONNECTION_TEXT.nameLabel);
      await expect.poll(() => input.getAttribute("aria-invalid")).toBe("true");
      const errorId = (await input.getAttribute("aria-describedby"))!.split(" ").at(-1)!;
      expect(await p.locator(`[id="${errorId}"]`).textContent()).toBe(CONNECTION_TEXT.nameTaken);
      expect(await p.getByRole("alert").count()).toBe(0);
    };
    await nameTaken(page);
    const noJs = await browser.newContext({
      baseURL: appUrl(),
      javaScriptEnabled: false,
      storageState: await page.context().storageState(),
    });
    const plain = await noJs.newPage();
    await plain.goto("/connections");
    await nameTaken(plain);
    await noJs.close();

    await row.getByRole("link", { name: "everything" }).click();
    await page.waitForURL((u) => u.pathname === "/connections/everything");
    const pg = page.getByTestId("playground");
    await pg.getByText(/^Connected to/).waitFor({ timeout: 30_000 });
    await pg.getByRole("list", { name: "Tools" }).getByText("echo", { exact: true }).waitFor();
    await page.screenshot({ path: "/tmp/connection.png", fullPage: true });
    // My deployments lists hosted servers only, and says where connections are.
    await page.goto("/deployments");
    await page.getByRole("link", { name: "Connections", exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/connections");
    expect(problems).toEqual([]);
  }, 180_000);
});
