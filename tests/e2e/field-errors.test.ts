import fs from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUBMIT_TEXT } from "~/shared/catalog.js";
import { CONNECTION_TEXT } from "~/shared/connections.js";
import { E2E_REMOTE_HOST } from "../support/remote-upstreams.js";
import { launchBrowser, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn } from "./helpers.js";

// A refusal about one field is said under that field, with and without JavaScript (issue 52,
// item 7): the connect-by-URL form on /connections (its URL, name and headers, refused by the
// action or the API) and the add-server form on /servers/add (a taken ID, the API's answer). The
// field says so (aria-invalid, aria-describedby naming the error); the form's top says nothing.

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

const PASSWORD = "field-errors-password-1";
const WIDE = { width: 1280, height: 1000 };

/** The field's error: next to it, and the field says so; not in an alert at the form's top. */
async function expectFieldError(page: Page, label: string, message: string) {
  const input = page.getByLabel(label, { exact: true });
  await expect.poll(() => input.getAttribute("aria-invalid")).toBe("true");
  const describedBy = (await input.getAttribute("aria-describedby")) ?? "";
  const texts = await Promise.all(
    describedBy
      .split(" ")
      .filter(Boolean)
      .map((id) => page.locator(`[id="${id}"]`).textContent()),
  );
  expect(texts).toContain(message);
  expect(await page.getByRole("alert").filter({ hasText: message }).count()).toBe(0);
}

/** The field is not (or no longer) marked invalid. */
async function expectValid(page: Page, label: string) {
  expect(await page.getByLabel(label, { exact: true }).getAttribute("aria-invalid")).toBeNull();
}

/** The page as it is, at 1280 and at 390 px, for a person to look at. */
async function shoot(page: Page, name: string) {
  await fs.mkdir("/tmp/shots", { recursive: true });
  await page.screenshot({ path: `/tmp/shots/${name}-1280.png`, fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `/tmp/shots/${name}-390.png`, fullPage: true });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.setViewportSize(WIDE);
}

const submitConnect = (page: Page) =>
  page.getByRole("form", { name: CONNECTION_TEXT.byUrl }).getByRole("button", { name: CONNECTION_TEXT.connect }).click();

describe.each([
  ["with JavaScript", true],
  ["without JavaScript", false],
])("errors at their field %s", (_mode, js) => {
  const tag = js ? "js" : "nojs";

  it("on /connections: the URL refused, a header line that is not one; what was typed stays, headers never come back", async () => {
    const { page } = await newPage(browser, { javaScriptEnabled: js, viewport: WIDE });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, `field-conn-${tag}-${Date.now()}@example.com`, PASSWORD);
    await page.goto("/connections");
    if (js) await page.locator("html[data-hydrated]").waitFor();
    const name = `fe-${tag}`;

    // The API refuses the address: said under Server URL, which takes the focus (with scripts).
    await page.getByLabel(CONNECTION_TEXT.nameLabel).fill(name);
    await page.getByLabel(CONNECTION_TEXT.urlLabel).fill("https://127.0.0.1/mcp");
    await page.getByLabel(CONNECTION_TEXT.headersLabel).fill("X-Trace: field-secret-value");
    await submitConnect(page);
    await expectFieldError(page, CONNECTION_TEXT.urlLabel, CONNECTION_TEXT.refusedAddress("127.0.0.1"));
    await expectValid(page, CONNECTION_TEXT.nameLabel);
    if (js) expect(await page.evaluate(() => document.activeElement?.id)).toBe("conn-url");
    expect(await page.getByLabel(CONNECTION_TEXT.nameLabel).inputValue()).toBe(name);
    expect(await page.getByLabel(CONNECTION_TEXT.urlLabel).inputValue()).toBe("https://127.0.0.1/mcp");
    // Without scripts the page is the action's answer: the headers typed are not in it.
    if (!js) expect(await page.content()).not.toContain("field-secret-value");
    await shoot(page, `connections-field-error-${tag}`);

    // A header line without a colon: said under Headers.
    await page.getByLabel(CONNECTION_TEXT.urlLabel).fill(`http://${E2E_REMOTE_HOST}:7899/mcp`);
    await page.getByLabel(CONNECTION_TEXT.headersLabel).fill("not a header");
    await submitConnect(page);
    await expectFieldError(page, CONNECTION_TEXT.headersLabel, CONNECTION_TEXT.badHeaderLine("not a header"));
    await expectValid(page, CONNECTION_TEXT.urlLabel);

    // Fixed, it connects (and the form starts empty again); a name taken is said under Name
    // (connections.test.ts: it needs a connection that runs).
    await page.getByLabel(CONNECTION_TEXT.headersLabel).fill("");
    await submitConnect(page);
    await page.getByTestId("connection").getByRole("link", { name }).waitFor();
    if (js) await page.getByText(CONNECTION_TEXT.connected).waitFor();
    await expectValid(page, CONNECTION_TEXT.headersLabel);
    expect(await page.getByLabel(CONNECTION_TEXT.nameLabel).inputValue()).toBe("");
    expect(problems).toEqual([]);
  }, 90_000);

  it("on /servers/add: an ID already taken is said at Server ID, the rest kept", async () => {
    const { page } = await newPage(browser, { javaScriptEnabled: js, viewport: WIDE });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, `field-add-${tag}-${Date.now()}@example.com`, PASSWORD);
    const id = `field-dup-${tag}-${Date.now()}`;
    const fill = async (name: string) => {
      await page.goto("/servers/add");
      if (js) await page.locator("html[data-hydrated]").waitFor();
      await page.getByLabel("Server Name *").fill(name);
      await page.getByLabel("Server ID *").fill(id);
      await page.getByLabel("Description *").fill("Submitted twice under one ID.");
      await page.getByLabel("Tags *").fill("test");
      await page.getByRole("button", { name: SUBMIT_TEXT.submit }).click();
    };
    await fill("Field Errors One");
    await page.getByText(SUBMIT_TEXT.success).waitFor();
    await fill("Field Errors Two");
    await expectFieldError(page, "Server ID *", SUBMIT_TEXT.duplicate);
    await expectValid(page, "Server Name *");
    expect(await page.getByLabel("Server Name *").inputValue()).toBe("Field Errors Two");
    expect(await page.getByLabel("Server ID *").inputValue()).toBe(id);
    await page.getByLabel("Server ID *").scrollIntoViewIfNeeded();
    await shoot(page, `add-server-field-error-${tag}`);
    expect(problems).toEqual([]);
  }, 90_000);
});
