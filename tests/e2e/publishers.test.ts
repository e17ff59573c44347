import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_KEY_TEXT, SERVER_FORM_TEXT } from "~/shared/publishers.js";
import { appUrl, launchBrowser, newPage, problemsOf } from "./browser.js";
import { generateKey, registerConfirmAndLogIn } from "./helpers.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe("publishers in Chromium", () => {
  it("creates an API key, copies it, uses it as a bearer, revokes it, and it stops working", async () => {
    const { context, page } = await newPage(browser);
    await context.grantPermissions(["clipboard-read", "clipboard-write"]);
    await page.goto("/servers/apikeys");
    await page.waitForURL((u) => u.pathname === "/login");
    await registerConfirmAndLogIn(page, `keys-${Date.now()}@example.com`, "keys-password-1");

    await page.goto("/servers/apikeys");
    await page.getByRole("heading", { name: API_KEY_TEXT.title }).waitFor();
    await page.getByText(API_KEY_TEXT.empty).waitFor();
    await page.getByRole("button", { name: "Generate API Key" }).click();
    await page.getByText(API_KEY_TEXT.nameRequired).waitFor();

    // The key will be used on /api/servers: it needs the 'servers' scope (a new key has 'mcp' only).
    expect(await page.getByRole("checkbox", { name: /^mcp/ }).isChecked()).toBe(true);
    const key = await generateKey(page, "e2e laptop", ["servers"]);
    await page.getByRole("button", { name: "Copy API key" }).click();
    await page.getByText(API_KEY_TEXT.copied).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await page.getByRole("listitem").filter({ hasText: "e2e laptop" }).getByText(key.slice(0, 11)).waitFor();

    // Dismissed, the key is gone for good: not in the page, not after a reload.
    await page.getByRole("button", { name: "Dismiss" }).click();
    expect(await page.content()).not.toContain(key);
    await page.reload();
    expect(await page.content()).not.toContain(key);

    const call = (k: string) => fetch(`${appUrl()}/api/servers`, { headers: { authorization: `Bearer ${k}` } });
    expect((await call(key)).status).toBe(200);

    await page.getByRole("button", { name: "Revoke e2e laptop" }).click();
    const confirm = page.getByRole("alertdialog", { name: 'Revoke the API key "e2e laptop"?' });
    await confirm.getByText("Anything using it stops working at once.").waitFor();
    await confirm.getByRole("button", { name: "Revoke", exact: true }).click();
    await page.getByText(API_KEY_TEXT.revoked("e2e laptop")).waitFor();
    await page.getByText(API_KEY_TEXT.empty).waitFor();
    expect((await call(key)).status).toBe(401);
    expect(problemsOf(page)).toEqual([]);
  });

  it("registers a server, validates the form, shows its page and edits it", async () => {
    const { page } = await newPage(browser);
    const stamp = Date.now();
    await registerConfirmAndLogIn(page, `maker${stamp}@example.com`, "maker-password-1");
    const username = `maker${stamp}`;

    await page.goto("/servers/server/new");
    await page.getByRole("heading", { name: SERVER_FORM_TEXT.newTitle }).waitFor();
    expect(await page.getByLabel("Version").inputValue()).toBe("1.0.0");
    expect(await page.getByRole("button", { name: "Remove" }).count()).toBe(0);
    await page.getByRole("button", { name: "Register Server" }).click();
    await page.getByText(SERVER_FORM_TEXT.required).waitFor();

    await page.getByLabel("Qualified Name *").fill("no-slash");
    await page.getByLabel("Display Name *").fill("Tide Tables");
    await page.getByLabel("Description *").fill("High and low tides for any harbour.");
    await page.getByRole("button", { name: "Register Server" }).click();
    await page.getByText(SERVER_FORM_TEXT.qualifiedNameFormat).waitFor();

    await page.getByLabel("Qualified Name *").fill(`${username}/tides`);
    await page.getByRole("button", { name: "Register Server" }).click();
    await page.getByText(SERVER_FORM_TEXT.connectionRequired).waitFor();

    await page.getByLabel("URL", { exact: true }).fill("wss://tides.example.com/ws");
    await page.getByLabel("Config Schema (JSON)").fill("{ not json");
    await page.getByRole("button", { name: "Register Server" }).click();
    await page.getByText(SERVER_FORM_TEXT.configSchemaJson).waitFor();
    await page
      .getByLabel("Config Schema (JSON)")
      .fill('{"type":"object","required":["tideKey"],"properties":{"tideKey":{"title":"Tide API key"}}}');

    await page.getByRole("button", { name: "Add Connection" }).click();
    expect(await page.getByRole("button", { name: "Remove" }).count()).toBe(2);
    await page.getByRole("button", { name: "Remove" }).nth(1).click();
    expect(await page.getByRole("button", { name: "Remove" }).count()).toBe(0);

    await page.getByLabel("Keywords").fill("tides, sea, , harbour");
    await page.getByLabel("Documentation (Markdown)").fill("# Tides\nAsk for **high water**.");
    await page.getByRole("tab", { name: "Preview" }).click();
    await page.getByTestId("doc-preview").getByRole("heading", { name: "Tides" }).waitFor();
    await page.getByRole("button", { name: "Register Server" }).click();
    await page.getByText(SERVER_FORM_TEXT.registered).waitFor();
    await page.waitForURL((u) => u.pathname === `/server/${username}/tides`, { timeout: 5000 });

    await page.getByRole("heading", { name: "Tide Tables" }).waitFor();
    await page.getByRole("heading", { name: "Owner Information" }).waitFor();
    await page.getByText("Total Usage (requests)").waitFor();
    await page.getByText("TIDE_KEY").waitFor();
    await page.getByRole("link", { name: "Edit" }).click();
    await page.getByRole("heading", { name: SERVER_FORM_TEXT.editTitle }).waitFor();
    expect(await page.getByLabel("Qualified Name *").getAttribute("readonly")).not.toBeNull();
    await page.getByLabel("Display Name *").fill("Tide Tables Pro");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByText(SERVER_FORM_TEXT.updated).waitFor();
    await page.waitForURL((u) => u.pathname === `/server/${username}/tides`, { timeout: 5000 });
    await page.getByRole("heading", { name: "Tide Tables Pro" }).waitFor();

    // Someone else sees the page but no Edit, and cannot open the form.
    const other = await newPage(browser);
    await other.page.goto(`/server/${username}/tides`);
    await other.page.getByRole("heading", { name: "Tide Tables Pro" }).waitFor();
    expect(await other.page.getByRole("link", { name: "Edit" }).count()).toBe(0);
    expect(problemsOf(page)).toEqual([]);
  });
});
