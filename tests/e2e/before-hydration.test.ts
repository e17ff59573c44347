// A slow page load: the visitor fills in and submits a form before the page's scripts have
// arrived (the test holds them back). The form posts to its route as a plain form does; no
// password ever reaches a URL: not a request's, not the browser history's, not the server's log.
import fs from "node:fs/promises";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { AUTH_TEXT, PROFILE_TEXT, RESET_TEXT } from "~/shared/auth.js";
import { waitForMail } from "../support/smtp-sink.js";
import { appUrl, launchBrowser, newPage } from "./browser.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

/** A page whose scripts never arrive, and every URL it requested or kept in its history. */
async function scriptlessPage(storageState?: Awaited<ReturnType<import("playwright-core").BrowserContext["storageState"]>>) {
  const { page, context } = await newPage(browser, { storageState });
  const requested: string[] = [];
  page.on("request", (r) => requested.push(r.url()));
  // The app's own scripts (the built bundle under /assets) are held back for good.
  await page.route(/\/assets\/.*\.js(\?.*)?$/, () => undefined);
  const history = async () => {
    const cdp = await context.newCDPSession(page);
    const { entries } = (await cdp.send("Page.getNavigationHistory")) as { entries: { url: string }[] };
    await cdp.detach();
    return entries.map((e) => e.url);
  };
  return { page, context, requested, history };
}

/** Opens `path` without waiting for the scripts (they never come), ready to type into. */
async function open(page: Page, path: string) {
  await page.goto(path, { waitUntil: "commit" });
  await page.locator("form[method=post]").first().waitFor();
  expect(await page.locator("html[data-hydrated]").count()).toBe(0);
}

async function expectNowhere(secret: string, where: { requested: string[]; history: () => Promise<string[]>; page: Page }) {
  const enc = [secret, encodeURIComponent(secret)];
  const inUrl = (u: string) => enc.some((s) => u.includes(s));
  expect(where.requested.filter(inUrl)).toEqual([]);
  expect((await where.history()).filter(inUrl)).toEqual([]);
  expect(inUrl(where.page.url())).toBe(false);
  const log = await fs.readFile(inject("appLog"), "utf8");
  expect(log.length).toBeGreaterThan(0);
  expect(enc.some((s) => log.includes(s))).toBe(false);
}

describe("forms submitted before the page's scripts load", () => {
  it("register, log in, reset password and profile post their passwords in the body only", async () => {
    const email = `early-${Date.now()}@example.com`;
    const first = `early-first-${Date.now()}`;
    const s = await scriptlessPage();

    // Register: the server answers with 'Check your email'.
    const registered = Date.now();
    await open(s.page, "/register");
    await s.page.getByLabel("Email").fill(email);
    await s.page.getByLabel("Password").fill(first);
    await s.page.getByRole("button", { name: AUTH_TEXT.createAccount }).click();
    await s.page.getByRole("heading", { name: AUTH_TEXT.checkEmail }).waitFor();
    const mail = await waitForMail(inject("mailDir"), email, { after: registered - 1000 });
    await s.page.goto(mail.text.match(/https?:\/\/\S+/)![0], { waitUntil: "commit" });
    await s.page.getByRole("heading", { name: "Email confirmed" }).waitFor();

    // Log in: lands on the page it was asked to go to.
    await open(s.page, "/login?redirect=/profile");
    await s.page.getByLabel("Email").fill(email);
    await s.page.getByLabel("Password").fill(first);
    await s.page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
    await s.page.waitForURL((u) => u.pathname === "/profile", { waitUntil: "commit" });

    // Profile: a new password, with the current one.
    const second = `early-second-${Date.now()}`;
    await s.page.getByLabel("Current Password").waitFor();
    expect(await s.page.locator("html[data-hydrated]").count()).toBe(0);
    await s.page.getByLabel("Current Password").fill(first);
    await s.page.getByLabel("New Password", { exact: true }).fill(second);
    await s.page.getByLabel("Confirm New Password").fill(second);
    await s.page.getByRole("button", { name: PROFILE_TEXT.save }).click();
    await s.page.getByText(PROFILE_TEXT.updated).waitFor();

    // Reset: from the e-mailed link, a third password.
    const third = `early-third-${Date.now()}`;
    await s.context.clearCookies();
    const asked = Date.now();
    await fetch(`${appUrl()}/api/auth/request-password-reset`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: appUrl() },
      body: JSON.stringify({ email, redirectTo: "/reset-password" }),
    });
    const reset = await waitForMail(inject("mailDir"), email, { after: asked - 1000 });
    await open(s.page, reset.text.match(/https?:\/\/\S+/)![0].replace(appUrl(), ""));
    await s.page.getByLabel("New Password", { exact: true }).fill(third);
    await s.page.getByLabel("Confirm New Password").fill(third);
    await s.page.getByRole("button", { name: RESET_TEXT.save }).click();
    await s.page.getByText(RESET_TEXT.done).waitFor();

    for (const secret of [first, second, third]) await expectNowhere(secret, s);
    // The posts went to the pages themselves, as POST.
    expect(s.requested.filter((u) => /\/(login|register|profile|reset-password)\?.*password/i.test(u))).toEqual([]);
    await s.context.close();

    // And the last password is the one that works.
    const r = await fetch(`${appUrl()}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: appUrl() },
      body: JSON.stringify({ email, password: third }),
    });
    expect(r.status).toBe(200);
  }, 120_000);
});
