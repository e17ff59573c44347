// A fresh install's catalogue shows what runs (issue 52): started on an empty database with the
// demo catalogue and SEED_CHECKS on, the platform checks the demo entries itself in the background;
// 'Everything' (the first, installed from npm like any deployment) lists its tools on its page
// without any admin, its card says it works here, and the directory's 'Works here' filter finds it.
// The app runs as a process of its own (the shared one keeps SEED_CHECKS off for the other tests);
// it stops once Everything is checked, before the rest of the demo catalogue is.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { WORKS_TEXT } from "~/shared/catalog.js";
import { TEST_PACKAGES_DIR } from "../support/app.js";
import { createDatabaseFrom, type TestDatabase } from "../support/db.js";
import { removeDataDir } from "../support/deployments.js";
import { freePort, startAppProcess, type AppProcess } from "../support/process.js";
import { launchBrowser, newPage, problemsOf } from "./browser.js";

let app: AppProcess;
let db: TestDatabase;
let dataDir: string;
let browser: Browser;
let base: string;

beforeAll(async () => {
  db = await createDatabaseFrom(inject("pgAdminUrl"), inject("pgTemplate"), inject("pgPrefix"));
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-e2e-demo-"));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  [app, browser] = await Promise.all([
    startAppProcess({
      PORT: String(port),
      PUBLIC_URL: base,
      DATABASE_URL: db.url,
      NODE_ENV: "test",
      AUTH_SECRET: "e2e-demo-secret-e2e-demo-secret-0123456",
      DATA_DIR: dataDir,
      PACKAGES_DIR: TEST_PACKAGES_DIR,
      SEED_CHECKS: "on",
      LOG_LEVEL: "info",
    }),
    launchBrowser(),
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop("SIGTERM");
  if (dataDir) await removeDataDir(dataDir);
  await db?.drop();
});

describe("a fresh catalogue", () => {
  it("shows the demo entries' tools once the platform checked them, with no admin, and 'Works here' finds them", async () => {
    const visitor = await newPage(browser, { baseURL: base });
    // Nobody asks: the platform checks Everything after start-up (an npm install and a start in the sandbox).
    const outcome = async () =>
      ((await (await visitor.context.request.get("/api/mcp-servers/everything")).json()) as { check_outcome?: string }).check_outcome;
    await expect
      .poll(outcome, { timeout: 300_000, interval: 1000 })
      .toBeDefined()
      .catch((e: unknown) => {
        throw new Error(`${String(e)}\n${app.output().slice(-6000)}`);
      });
    expect(await outcome(), app.output().slice(-6000)).toBe("works");

    const problems = problemsOf(visitor.page);
    await visitor.page.goto("/server/everything");
    const checked = visitor.page.getByRole("region", { name: WORKS_TEXT.title });
    await checked.getByText(/^Works here: it started in Switchboard's sandbox and listed \d+ tools\.$/).waitFor();
    const tools = visitor.page.getByRole("region", { name: "Tools" });
    await tools.getByText("echo", { exact: true }).waitFor();
    await tools.getByText(/^\d+ tools, listed /).waitFor();
    expect(await visitor.page.getByText("Its tools are listed here once an administrator has checked them.").count()).toBe(0);
    expect(await visitor.page.getByText(WORKS_TEXT.toolsPending).count()).toBe(0);
    await visitor.page.screenshot({ path: "test-results/demo-catalogue-page.png", fullPage: true });

    await visitor.page.goto("/");
    await visitor.page.getByRole("link", { name: WORKS_TEXT.filter, exact: true }).click();
    await visitor.page.waitForURL((u) => u.searchParams.get("works") === "1");
    const card = visitor.page.getByRole("link", { name: /Everything/ });
    await card.getByText(WORKS_TEXT.badge).waitFor();
    await visitor.page.screenshot({ path: "test-results/demo-catalogue-works-here.png", fullPage: true });
    await visitor.page.setViewportSize({ width: 390, height: 844 });
    await visitor.page.screenshot({ path: "test-results/demo-catalogue-works-here-390.png", fullPage: true });
    expect(problems).toEqual([]);
    await visitor.context.close();
  }, 360_000);
});
