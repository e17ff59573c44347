import fs from "node:fs/promises";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { TOOLSET_TEXT } from "~/shared/toolsets.js";
import { browserWithFixtureRepo, newPage, problemsOf } from "./browser.js";
import { registerConfirmAndLogIn, registerOwnedServer, subscribeToPro } from "./helpers.js";

// A toolset member's name stays readable on a phone (issue 52, item 7): at 390 px a long name
// (with hyphens, or one unbroken word) wraps within the screen, at most 3 lines, never squeezed
// to a letter a line beside its prefix field; on the toolsets page (the new toolset's members),
// and on a toolset's page (its members and the form that changes them).

const env = browserWithFixtureRepo();
const PHONE = { width: 390, height: 844 };

/** Every member name on the page: inside the screen's width, at most 3 lines tall, and wider than a few letters. */
async function namesReadable(page: Page, expected: number) {
  const names = page.getByTestId("toolset-member-name");
  await expect.poll(() => names.count()).toBe(expected);
  for (const name of await names.all()) {
    const box = (await name.boundingBox())!;
    const lineHeight = await name.evaluate((e) => parseFloat(getComputedStyle(e).lineHeight));
    const text = (await name.textContent())!;
    expect(box.x, text).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width, text).toBeLessThanOrEqual(PHONE.width);
    expect(box.height, text).toBeLessThanOrEqual(3 * lineHeight + 1);
    expect(box.width, text).toBeGreaterThan(150);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
}

async function shoot(page: Page, name: string) {
  await fs.mkdir("/tmp/shots", { recursive: true });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: `/tmp/shots/${name}-1280.png`, fullPage: true });
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(500); // the narrow layout painted before it is taken
  await page.screenshot({ path: `/tmp/shots/${name}-390.png`, fullPage: true });
  await page.screenshot({ path: `/tmp/shots/${name}-390-top.png` });
}

describe("toolset member names at 390 px", () => {
  it("wrap within the screen, at most 3 lines, on the toolsets page and a toolset's page", async () => {
    const { page } = await newPage(env.browser, { viewport: PHONE });
    const problems = problemsOf(page);
    await registerConfirmAndLogIn(page, `narrow-names-${Date.now()}@example.com`, "narrow-names-password-1");
    await subscribeToPro(page);
    await page.goto("/");
    const hyphens = await registerOwnedServer(page, "a-member-with-a-rather-long-name-that-goes-on-for-phones", env.repo.url);
    const unbroken = await registerOwnedServer(page, "averyveryverylongservernamewithoutanybreaksatallforthenarrowscreen", env.repo.url);
    const made = await page.evaluate(
      async (names) => {
        const mine = (await (await fetch("/api/deployments")).json()) as { id: string; server_id: string }[];
        const members = names.map((n) => ({ deployment_id: mine.find((d) => d.server_id === n)!.id }));
        const r = await fetch("/api/toolsets", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "narrow", members }),
        });
        return r.status;
      },
      [hyphens, unbroken],
    );
    expect(made).toBe(202);

    // The new toolset's form lists both deployments; the list names the toolset's members.
    await page.goto("/toolsets");
    await page.getByRole("heading", { name: TOOLSET_TEXT.title, level: 1 }).waitFor();
    await shoot(page, "toolsets");
    await namesReadable(page, 2);

    // The toolset's page: its members under its name, and the form that changes them.
    await page.goto("/toolsets/narrow");
    await page.getByRole("heading", { name: "narrow", level: 1 }).waitFor();
    await shoot(page, "toolset");
    await namesReadable(page, 4);
    expect(problems).toEqual([]);
  }, 240_000);
});
