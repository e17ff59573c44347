import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, inject } from "vitest";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";

export const appUrl = () => inject("appUrl");

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

export async function newPage(
  browser: Browser,
  opts: Parameters<Browser["newContext"]>[0] = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: appUrl(), ...opts });
  const page = await context.newPage();
  // Any CSP violation or page error is a bug: collect them so tests can assert there were none.
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    // With the resource's address: a "Failed to load resource" alone does not say which.
    const where = m.location().url;
    if (m.type() === "error") problems.push(`console: ${m.text()}${where ? ` (${where})` : ""}`);
  });
  (page as Page & { problems: string[] }).problems = problems;
  return { context, page };
}

export function problemsOf(page: Page): string[] {
  return (page as Page & { problems?: string[] }).problems ?? [];
}

/**
 * For a test file that deploys the fixture repository: Chromium and the repository, made before
 * its tests and cleaned up after them. Read them through the getters inside tests.
 */
export function browserWithFixtureRepo(): { readonly browser: Browser; readonly repo: FixtureRepo } {
  let browser: Browser | undefined;
  let repo: FixtureRepo | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
    repo = await createFixtureRepo();
  });
  afterAll(async () => {
    await browser?.close();
    await repo?.cleanup();
  });
  return {
    get browser() {
      return browser!;
    },
    get repo() {
      return repo!;
    },
  };
}
