import fs from "node:fs/promises";
import { describe, expect, inject, it } from "vitest";
import { DOMAIN_TEXT } from "~/shared/domains.js";
import { browserWithFixtureRepo, newPage, problemsOf } from "./browser.js";
import { confirmDialog, registerConfirmAndLogIn, registerOwnedServer, subscribeToPro } from "./helpers.js";

// Custom domains on a deployment's page (issue 37, item 1), in Chromium: a Pro owner adds a domain,
// is shown the TXT record to publish, verifies it once the (test) DNS server has it, and is shown
// the URL to give clients; then removes it. Requests at the domain are the integration tests'.

const env = browserWithFixtureRepo();

describe("custom domains in Chromium", () => {
  it("add, see the record, verify once it is published, copy the URL, remove", async () => {
    const { page } = await newPage(env.browser, { viewport: { width: 1280, height: 1100 } });
    const problems = problemsOf(page);
    const stamp = Date.now();
    await registerConfirmAndLogIn(page, `domains-${stamp}@example.com`, "domains-password-1");
    const qn = await registerOwnedServer(page, "fixture", env.repo.url);
    await page.goto(`/server/${qn}`);
    await page.getByRole("region", { name: "Deployment" }).getByText("Running", { exact: true }).waitFor({ timeout: 120_000 });
    const card = page.getByTestId("domains");
    await card.getByText(DOMAIN_TEXT.proOnly).waitFor();

    await subscribeToPro(page);
    await page.goto(`/server/${qn}`);

    const domain = `mcp-${stamp}.example.test`;
    await card.getByLabel(DOMAIN_TEXT.label).fill(`  ${domain.toUpperCase()} `);
    await card.getByRole("button", { name: DOMAIN_TEXT.add }).click();
    await card.getByText(DOMAIN_TEXT.added(domain)).waitFor();
    const item = card.getByTestId("domain");
    await item.getByText(DOMAIN_TEXT.status.pending).waitFor();
    const name = `_switchboard-challenge.${domain}`;
    await item.getByText(name, { exact: true }).waitFor();
    const value = (await item.locator("code").nth(1).textContent())!;
    expect(value).toMatch(/^switchboard-verify=/);
    // ...and the CNAME that routes the domain here: to PUBLIC_URL's host, which the card names.
    const host = new URL(inject("appUrl")).hostname;
    await card.getByText(DOMAIN_TEXT.intro(host), { exact: true }).waitFor();
    await item.getByText(DOMAIN_TEXT.cnameName, { exact: true }).waitFor();
    expect(await item.locator("code").nth(2).textContent()).toBe(domain);
    await item.getByText(DOMAIN_TEXT.cnameValue, { exact: true }).waitFor();
    expect(await item.locator("code").nth(3).textContent()).toBe(host);
    await item.getByText(DOMAIN_TEXT.cnameHint, { exact: true }).waitFor();
    await fs.mkdir("/tmp/shots", { recursive: true });
    await card.scrollIntoViewIfNeeded();
    await page.screenshot({ path: "/tmp/shots/domains-card-1280.png" });
    await page.setViewportSize({ width: 390, height: 844 });
    await card.scrollIntoViewIfNeeded();
    await card.screenshot({ path: "/tmp/shots/domains-card-390.png" });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 1100 });

    await item.getByRole("button", { name: DOMAIN_TEXT.verify }).click();
    await card.getByText(DOMAIN_TEXT.notYet(name)).waitFor();
    await fs.writeFile(inject("dnsRecords"), JSON.stringify({ [name]: [value] }));
    await item.getByRole("button", { name: DOMAIN_TEXT.verify }).click();
    await card.getByText(DOMAIN_TEXT.verified(domain)).waitFor();
    await item.getByText(DOMAIN_TEXT.status.verified, { exact: true }).waitFor();
    const url = new URL(inject("appUrl"));
    await item.getByText(`${url.protocol}//${domain}:${url.port}/mcp`, { exact: true }).waitFor();
    await card.screenshot({ path: "test-results/domains-card.png" });

    // Remove asks first, saying what stops working; Cancel keeps the domain.
    await item.getByRole("button", { name: `${DOMAIN_TEXT.remove} ${domain}` }).click();
    const ask = page.getByRole("alertdialog", { name: DOMAIN_TEXT.removeTitle(domain) });
    await ask.getByText(DOMAIN_TEXT.removeText(domain)).waitFor();
    await ask.getByRole("button", { name: DOMAIN_TEXT.cancel }).click();
    await ask.waitFor({ state: "detached" });
    await item.getByText(DOMAIN_TEXT.status.verified, { exact: true }).waitFor();
    await item.getByRole("button", { name: `${DOMAIN_TEXT.remove} ${domain}` }).click();
    await confirmDialog(page, DOMAIN_TEXT.remove);
    await card.getByText(DOMAIN_TEXT.removed(domain)).waitFor();
    await card.getByText(DOMAIN_TEXT.none).waitFor();
    expect(problems).toEqual([]);
  }, 240_000);
});
