import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AUTH_TEXT } from "~/shared/auth.js";
import { BILLING_TEXT } from "~/shared/billing.js";
import { launchBrowser, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn } from "./helpers.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

const current = (page: Page) => page.getByRole("region", { name: BILLING_TEXT.currentSubscription });
const planCard = (page: Page, name: string) => page.getByRole("article", { name, exact: true });
const textOf = async (page: Page, testId: string) => (await current(page).getByTestId(testId).textContent())?.trim();

/** Waits until the Current Subscription box shows this plan. */
async function waitForPlan(page: Page, name: string) {
  await current(page).getByTestId("current-plan").getByText(name, { exact: true }).waitFor();
  await planCard(page, name).getByRole("button", { name: BILLING_TEXT.currentPlan }).waitFor();
}

async function startCheckout(page: Page) {
  await planCard(page, "Pro")
    .getByRole("button", { name: BILLING_TEXT.subscribeTo("Pro") })
    .click();
  await page.waitForURL((u) => u.pathname.startsWith("/subscription/test-checkout/"));
  await page.getByText(BILLING_TEXT.testMode).waitFor();
}

describe("subscriptions in Chromium: the whole test-mode flow", () => {
  it("signed out -> log in -> Free -> checkout -> Pro -> cancel at period end -> period ends -> Free", async () => {
    const { page, context } = await newPage(browser);
    const problems = problemsOf(page);
    const email = `subscriber-${Date.now()}@example.com`;
    const password = "subscriber-password-1";
    await registerConfirmAndLogIn(page, email, password);
    await context.clearCookies();

    // Signed out: BILLING_TEXT.mustLogin and a Log In link that comes back here.
    await page.goto("/subscription");
    await page.getByText(BILLING_TEXT.mustLogin).waitFor();
    expect(await page.title()).toBe("Subscription - Switchboard");
    const login = page.getByRole("link", { name: BILLING_TEXT.logIn, exact: true });
    expect(await login.getAttribute("href")).toBe("/login?redirect=subscription");
    await login.click();
    await page.waitForURL((u) => u.pathname === "/login" && u.searchParams.get("redirect") === "subscription");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/subscription");

    // Free is the current plan.
    await page.getByRole("heading", { level: 1, name: BILLING_TEXT.title }).waitFor();
    await waitForPlan(page, "Free");
    expect(await textOf(page, "current-status")).toBe("Free");
    expect(await textOf(page, "current-period-end")).toBe("—");
    expect(await planCard(page, "Free").getByRole("button", { name: BILLING_TEXT.currentPlan }).isDisabled()).toBe(true);
    expect(await planCard(page, "Free").getByText("Free", { exact: true }).count()).toBe(2); // the name and the price
    expect(await planCard(page, "Pro").getByText("$20/mo").isVisible()).toBe(true);
    expect(await planCard(page, "Pro").getByText("Custom domains").isVisible()).toBe(true);
    expect(await current(page).getByRole("button", { name: BILLING_TEXT.cancel }).count()).toBe(0);

    // Subscribe -> the built-in test checkout -> Confirm payment -> back, Pro and Active.
    await startCheckout(page);
    await page.getByRole("heading", { level: 1, name: BILLING_TEXT.testCheckoutTitle }).waitFor();
    await page.getByRole("heading", { name: "Pro", exact: true }).waitFor();
    expect(await page.getByTestId("checkout-price").textContent()).toBe("$20/mo");
    await page.getByRole("button", { name: BILLING_TEXT.confirmPayment }).click();
    await page.waitForURL((u) => u.pathname === "/subscription");
    await page.getByText(BILLING_TEXT.checkoutSuccess).waitFor();
    await page.waitForURL((u) => u.pathname === "/subscription" && !u.searchParams.has("checkout_success"));
    await waitForPlan(page, "Pro");
    expect(await textOf(page, "current-status")).toBe("Active");
    const periodEnd = (await textOf(page, "current-period-end"))!;
    expect(periodEnd).toMatch(/^[A-Z][a-z]+ \d{1,2}, \d{4}$/);
    expect(new Date(`${periodEnd} UTC`).getTime()).toBeGreaterThan(Date.now());
    expect(await planCard(page, "Pro").getByRole("button", { name: BILLING_TEXT.currentPlan }).isDisabled()).toBe(true);
    await planCard(page, "Free").getByRole("button", { name: BILLING_TEXT.useFree }).waitFor();
    await page.waitForTimeout(1200); // the refresh 1 s after a checkout has run
    await page.screenshot({ path: "test-results/subscription-pro.png", fullPage: true });
    await page.getByTestId("theme-toggle").locator("visible=true").click();
    await page.screenshot({ path: "test-results/subscription-pro-light.png", fullPage: true });
    await page.getByTestId("theme-toggle").locator("visible=true").click();

    // Cancel asks first; the confirmation works from the keyboard (Escape keeps the subscription).
    const cancel = current(page).getByRole("button", { name: BILLING_TEXT.cancel });
    await cancel.click();
    const dialog = page.getByRole("alertdialog", { name: BILLING_TEXT.cancel });
    await dialog.getByText(BILLING_TEXT.confirmCancel).waitFor();
    // Focus moves into the dialog and back to the button once it closed: the dialog does both a
    // frame after it opens or unmounts, so the checks wait for it rather than look at once.
    await expect
      .poll(() => dialog.getByRole("button", { name: "Keep subscription" }).evaluate((b) => b === document.activeElement), {
        timeout: 5000,
      })
      .toBe(true);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => cancel.evaluate((b) => b === document.activeElement), { timeout: 5000 }).toBe(true);
    await page.keyboard.press("Enter");
    await dialog.getByRole("button", { name: "Confirm" }).click();
    await current(page).getByText(BILLING_TEXT.endsOn(periodEnd)).waitFor();
    expect(await current(page).getByRole("button", { name: BILLING_TEXT.cancel }).count()).toBe(0);
    await waitForPlan(page, "Pro"); // Pro lasts until the period ends

    // The period ends (a test clock): Refresh Subscription shows Free again.
    const ended = await page.evaluate(async () => {
      const r = await fetch("/api/subscriptions/test-clock/end-period", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      return { status: r.status, body: (await r.json()) as unknown };
    });
    expect(ended).toEqual({ status: 200, body: { success: true } });
    await current(page).getByRole("button", { name: BILLING_TEXT.refresh }).click();
    await waitForPlan(page, "Free");
    expect(await textOf(page, "current-status")).toBe("Free");
    expect(await textOf(page, "current-period-end")).toBe("—");
    expect(await current(page).getByText(BILLING_TEXT.endsOn(periodEnd)).count()).toBe(0);
    await planCard(page, "Pro")
      .getByRole("button", { name: BILLING_TEXT.subscribeTo("Pro") })
      .waitFor();

    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("a canceled checkout comes back with its message and leaves the plan Free", async () => {
    const { page, context } = await newPage(browser);
    const problems = problemsOf(page);
    const email = `browser-${Date.now()}@example.com`;
    await registerConfirmAndLogIn(page, email, "browser-password-1");

    // The account menu leads here.
    await page.getByRole("button", { name: `Account menu for ${email.split("@")[0]}` }).click();
    await page.getByRole("menuitem", { name: "Subscription" }).click();
    await page.waitForURL((u) => u.pathname === "/subscription");
    await waitForPlan(page, "Free");

    await startCheckout(page);
    const checkoutUrl = page.url();
    await page.getByRole("button", { name: BILLING_TEXT.confirmPayment }).waitFor();
    await page.screenshot({ path: "test-results/test-checkout.png", fullPage: true });
    await page.getByRole("button", { name: BILLING_TEXT.cancelCheckout, exact: true }).click();
    await page.waitForURL((u) => u.pathname === "/subscription");
    await page.getByText(BILLING_TEXT.checkoutCanceled).waitFor();
    await waitForPlan(page, "Free");
    expect(await textOf(page, "current-status")).toBe("Free");

    // That checkout is closed now; an unknown one is not found.
    await page.goto(checkoutUrl);
    await page.getByText(BILLING_TEXT.checkoutClosed).waitFor();
    expect(await page.getByRole("button", { name: BILLING_TEXT.confirmPayment }).count()).toBe(0);
    await page.getByRole("link", { name: /Back to/ }).click();
    await page.waitForURL((u) => u.pathname === "/subscription");
    await waitForPlan(page, "Free");
    await page.goto("/subscription/test-checkout/no-such-checkout");
    await page.getByText(BILLING_TEXT.checkoutNotFound).waitFor();

    // Signed out, the checkout page asks to log in first and comes back.
    await context.clearCookies();
    await page.goto(checkoutUrl);
    await page.waitForURL((u) => u.pathname === "/login" && u.searchParams.get("redirect") === new URL(checkoutUrl).pathname);

    expect(problems.filter((p) => !p.includes("status of 404"))).toEqual([]);
    await context.close();
  }, 120_000);
});
