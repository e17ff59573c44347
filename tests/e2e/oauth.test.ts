import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { AUTH_TEXT } from "~/shared/auth.js";
import type { DeploymentView } from "~/shared/deployments.js";
import { OAUTH_TEXT } from "~/shared/oauth.js";
import { TEST_PACKAGES_DIR } from "../support/app.js";
import { createDatabaseFrom, type TestDatabase } from "../support/db.js";
import { removeDataDir } from "../support/deployments.js";
import { createFixtureRepo, type FixtureRepo } from "../support/git-fixture.js";
import { deployFixture } from "../support/oauth-app.js";
import {
  connectWithOAuth,
  MemoryProvider,
  startCallbackServer,
  startMetadataServer,
  type CallbackServer,
  type MetadataServer,
} from "../support/oauth-client.js";
import { sdkJourney } from "../support/oauth-journey.js";
import { SDK_V2 } from "../support/oauth-sdk-v2.js";
import { signUpOverHttp } from "../support/oauth.js";
import { freePort, startAppProcess, type AppProcess } from "../support/process.js";
import { launchBrowser, newPage, problemsOf } from "./browser.js";

// The official MCP SDK client connects to a deployment by its URL alone, the way Claude.ai or
// ChatGPT would: discovery from the 401, registration (metadata document, then DCR), and the
// person signing in and approving on the consent page in Chromium; then tools, a silent refresh,
// revocation by the owner, and 401 afterwards. The app runs as a real process of its own (it needs
// OAUTH_CIMD_ALLOW_HTTP_LOOPBACK=on to read the test's metadata documents from loopback).

const EMAIL = "connector-owner@example.com";
const PASSWORD = "password123";

let app: AppProcess;
let db: TestDatabase;
let dataDir: string;
let repo: FixtureRepo;
let docs: MetadataServer;
let callback: CallbackServer;
let browser: Browser;
let base: string;
let dep: DeploymentView;

beforeAll(async () => {
  db = await createDatabaseFrom(inject("pgAdminUrl"), inject("pgTemplate"), inject("pgPrefix"));
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-e2e-oauth-"));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  [docs, callback, repo, browser] = await Promise.all([startMetadataServer(), startCallbackServer(), createFixtureRepo(), launchBrowser()]);
  app = await startAppProcess({
    PORT: String(port),
    PUBLIC_URL: base,
    DATABASE_URL: db.url,
    NODE_ENV: "test",
    AUTH_SECRET: "e2e-oauth-secret-e2e-oauth-secret-0123",
    AUTH_RATE_LIMIT: "off",
    DATA_DIR: dataDir,
    PACKAGES_DIR: TEST_PACKAGES_DIR,
    GIT_ALLOW_FILE: "on",
    OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: "on",
  });
  const owner = await signUpOverHttp(base, EMAIL, PASSWORD);
  dep = await deployFixture(owner, "fixture", repo.url);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await app?.stop("SIGTERM");
  await Promise.all([docs?.close(), callback?.close(), repo?.cleanup()]);
  if (dataDir) await removeDataDir(dataDir);
  await db?.drop();
});

/** The consent page as the person sees it: who asks, where the answer goes, for which deployment. Not frameable. */
async function checkConsentPage(page: Page, clientName: string) {
  await page.waitForURL((u) => u.pathname === "/oauth/consent");
  await expect.poll(() => page.getByTestId("consent-title").textContent()).toContain(clientName);
  expect(await page.getByTestId("consent-redirect-host").textContent()).toBe(new URL(callback.redirectUri).host);
  expect(await page.getByTestId("consent-deployment").textContent()).toContain(dep.url);
  const headers = (await page.context().request.get(page.url(), { maxRedirects: 0 })).headers();
  const csp = headers["content-security-policy"] ?? "";
  expect(headers["x-frame-options"]?.toUpperCase() === "DENY" || /frame-ancestors 'none'/.test(csp), JSON.stringify(headers)).toBe(true);
}

/** Opens the authorization URL in the browser, signs in if asked, clicks `button` on the consent page; where the browser lands. */
async function decideInBrowser(page: Page, url: URL, clientName: string, button: string): Promise<URL> {
  const landed = callback.next();
  await page.goto(url.href);
  if (new URL(page.url()).pathname === "/login") {
    await page.getByLabel("Email").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: AUTH_TEXT.logIn, exact: true }).click();
  }
  await checkConsentPage(page, clientName);
  await page.getByRole("button", { name: button, exact: true }).click();
  const back = await landed;
  await page.waitForURL((u) => u.origin === new URL(callback.redirectUri).origin);
  return back;
}

/** The owner revokes the app from the browser, with the Connected apps API the API keys page uses. */
async function revokeInBrowser(page: Page, clientName: string) {
  await page.goto("/");
  const status = await page.evaluate(async (name) => {
    const list = (await (await fetch("/api/auth/connected-apps")).json()) as { data: { id: string; clientName: string }[] };
    const found = list.data.find((a) => a.clientName === name);
    if (!found) return `not listed: ${JSON.stringify(list)}`;
    return (await fetch(`/api/auth/connected-apps/${encodeURIComponent(found.id)}`, { method: "DELETE" })).status;
  }, clientName);
  expect(status).toBe(200);
}

describe("an OAuth-capable MCP client connects to a deployment by its URL alone (Chromium)", () => {
  it(
    "by metadata document: the person signs in on the way, approves, and the client works until revoked",
    { timeout: 120_000 },
    async () => {
      const { page } = await newPage(browser, { baseURL: base });
      const name = "E2E connector (metadata document)";
      const clientMetadataUrl = `https://client.test:${docs.port}/connector.json`;
      const provider = new MemoryProvider({ redirectUri: callback.redirectUri, clientName: name, clientMetadataUrl });
      docs.set("/connector.json", { client_id: clientMetadataUrl, ...provider.clientMetadata });
      await sdkJourney({
        url: dep.url,
        base,
        provider,
        registration: "cimd",
        approve: (u) => decideInBrowser(page, u, name, OAUTH_TEXT.approve),
        revoke: () => revokeInBrowser(page, name),
      });
      expect(docs.hits).toContain("/connector.json");
      expect(problemsOf(page)).toEqual([]);
    },
  );

  it(
    "by Dynamic Client Registration: Deny sends access_denied back; Approve connects; revoked, it gets 401",
    { timeout: 120_000 },
    async () => {
      const { page } = await newPage(browser, { baseURL: base });
      const name = "E2E connector (DCR)";

      const refused = new MemoryProvider({ redirectUri: callback.redirectUri, clientName: name });
      const denied = connectWithOAuth(dep.url, refused, (u) => decideInBrowser(page, u, name, OAUTH_TEXT.deny), `${base}/api/auth`);
      await expect(denied).rejects.toThrow(/authorization refused/);
      const back = new URL(page.url()); // where Deny sent the browser: the client's redirect URI
      expect(back.searchParams.get("error")).toBe("access_denied");
      expect(back.searchParams.get("state")).toBe(refused.lastState);
      expect(back.searchParams.get("iss")).toBe(`${base}/api/auth`);
      expect(back.searchParams.has("code")).toBe(false);

      const provider = new MemoryProvider({ redirectUri: callback.redirectUri, clientName: name });
      await sdkJourney({
        url: dep.url,
        base,
        provider,
        registration: "dcr",
        approve: (u) => decideInBrowser(page, u, name, OAUTH_TEXT.approve),
        revoke: () => revokeInBrowser(page, name),
      });
      expect(problemsOf(page)).toEqual([]);
    },
  );

  it(
    "with the SDK v2 client (@modelcontextprotocol/client), by metadata document, approved in the browser",
    { timeout: 120_000 },
    async () => {
      const { page } = await newPage(browser, { baseURL: base });
      const name = "E2E connector (SDK v2)";
      const clientMetadataUrl = `https://client.test:${docs.port}/connector-v2.json`;
      const provider = new MemoryProvider({ redirectUri: callback.redirectUri, clientName: name, clientMetadataUrl });
      docs.set("/connector-v2.json", { client_id: clientMetadataUrl, ...provider.clientMetadata });
      await sdkJourney({
        url: dep.url,
        base,
        provider,
        registration: "cimd",
        kit: SDK_V2,
        approve: (u) => decideInBrowser(page, u, name, OAUTH_TEXT.approve),
        revoke: () => revokeInBrowser(page, name),
      });
      expect(problemsOf(page)).toEqual([]);
    },
  );
});
