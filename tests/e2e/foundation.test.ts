import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WAITLIST_TEXT } from "~/shared/waitlist.js";
import { launchBrowser, newPage, problemsOf } from "./browser.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(() => browser?.close());

describe("the shell in Chromium", () => {
  it("starts dark, toggles the theme, and keeps it across a reload without a flash", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/");
    expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(true);

    // A click before React has hydrated the page reaches no handler (a loaded machine is slow to
    // hydrate): click until the theme changes, as a user would.
    await expect
      .poll(
        async () => {
          if (await page.evaluate(() => document.documentElement.classList.contains("dark")))
            await page.getByTestId("theme-toggle").first().click();
          return page.evaluate(() => document.documentElement.classList.contains("dark"));
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(false);
    expect(await page.evaluate(() => localStorage.getItem("theme"))).toBe("light");

    // Record the class on the very first paint: the boot script must have run before the body exists.
    await page.addInitScript(() => {
      document.addEventListener("readystatechange", () => {
        if (document.readyState === "interactive")
          (window as unknown as { firstClass: string }).firstClass = document.documentElement.className;
      });
      new MutationObserver((_, obs) => {
        if (document.body) {
          (window as unknown as { bodyClass: string }).bodyClass = document.documentElement.className;
          obs.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    });
    await page.reload();
    expect(await page.evaluate(() => (window as unknown as { bodyClass: string }).bodyClass)).not.toContain("dark");
    expect(await page.evaluate(() => document.documentElement.classList.contains("dark"))).toBe(false);
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("joins the waitlist and shows the success text", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/waitlist");
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(WAITLIST_TEXT.headline);
    await page.getByPlaceholder("you@example.com").fill("e2e-visitor@example.com");
    await page.getByRole("button", { name: WAITLIST_TEXT.button }).click();
    await page.getByText(WAITLIST_TEXT.success).waitFor();
    expect(await page.getByPlaceholder("you@example.com").inputValue()).toBe("");
    expect(problemsOf(page)).toEqual([]);
    await context.close();
  });

  it("shows 'Joining...' with disabled controls while the request runs", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/waitlist");
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route("**/api/waitlist", async (route) => {
      await held;
      await route.continue();
    });
    await page.getByPlaceholder("you@example.com").fill("slow@example.com");
    await page.getByRole("button", { name: WAITLIST_TEXT.button }).click();
    const busy = page.getByRole("button", { name: WAITLIST_TEXT.busy });
    await busy.waitFor();
    expect(await busy.isDisabled()).toBe(true);
    expect(await page.getByPlaceholder("you@example.com").isDisabled()).toBe(true);
    release();
    await page.getByText(WAITLIST_TEXT.success).waitFor();
    await context.close();
  });

  it("shows the network error text when the request cannot be sent", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/waitlist");
    await page.route("**/api/waitlist", (route) => route.abort("internetdisconnected"));
    await page.getByPlaceholder("you@example.com").fill("offline@example.com");
    await page.getByRole("button", { name: WAITLIST_TEXT.button }).click();
    await page.getByText(WAITLIST_TEXT.networkError).waitFor();
    await context.close();
  });

  it("refuses an invalid e-mail with the browser's validation and sends nothing", async () => {
    const { page, context } = await newPage(browser);
    await page.goto("/waitlist");
    let sent = 0;
    page.on("request", (r) => {
      if (r.url().includes("/api/waitlist")) sent++;
    });
    const input = page.getByPlaceholder("you@example.com");
    await input.fill("not-an-email");
    await page.getByRole("button", { name: WAITLIST_TEXT.button }).click();
    const message = await input.evaluate((el: HTMLInputElement) => el.validationMessage);
    expect(message.length).toBeGreaterThan(0);
    expect(await input.evaluate((el: HTMLInputElement) => el.validity.typeMismatch)).toBe(true);
    expect(sent).toBe(0);
    await context.close();
  });

  it("shows the 404 screen and goes home from it", async () => {
    const { page, context } = await newPage(browser);
    const res = await page.goto("/definitely/not/here");
    expect(res?.status()).toBe(404);
    await page.getByText("404 Page Not Found").first().waitFor();
    await page.getByRole("link", { name: "Return to Home" }).click();
    await page.waitForURL((u) => u.pathname === "/");
    await context.close();
  });

  it("opens the mobile menu with the toggle on a small screen", async () => {
    const { page, context } = await newPage(browser, { viewport: { width: 390, height: 800 } });
    await page.goto("/");
    const toggle = page.getByRole("button", { name: "Open menu" });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    await page.locator("#mobile-menu").waitFor();
    expect(await page.locator("#mobile-menu").getByText("Workflow Builder").isVisible()).toBe(true);
    await context.close();
  });
});
