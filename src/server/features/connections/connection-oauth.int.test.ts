import fs from "node:fs";
import http from "node:http";
import type net from "node:net";
import { chromium } from "playwright-core";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONNECTION_TEXT, type ConnectionView } from "~/shared/connections.js";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { addCatalogEntry } from "~support/deployments.js";
import { newApiKey, sdkClient, textOf } from "~support/gateway.js";
import { startOAuthUpstream, type OAuthUpstream } from "~support/oauth-upstream.js";
import { waitFor } from "~support/wait.js";

// OAuth to a connection's remote server: an upstream behind its own authorization server (the
// MCP SDK's router with a consent page, tests/support/oauth-upstream.ts) on loopback, which the
// operator allows here. Switchboard discovers it, registers, sends the user through its consent
// with PKCE and `resource`, keeps each user's tokens sealed, refreshes them, says 'sign in again'
// when the upstream revokes the grant, and revokes them when the connection goes. Consent is given
// the way a browser gives it (a form post), and once in Chromium from the Connections page.

const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
let t: TestApp;
let up: OAuthUpstream;
let users = 0;

beforeAll(async () => {
  up = await startOAuthUpstream();
  const port = await freePort();
  t = await createTestApp({
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    SANDBOX_EGRESS_ALLOW: "127.0.0.1",
    RESTART_BACKOFF_MS: "200",
    DEPLOY_START_TIMEOUT_MS: "20000",
  });
  await t.listen();
}, 120_000);

afterAll(async () => {
  await t?.close();
  await up?.close();
});

async function user(): Promise<{ c: Client; key: string }> {
  const c = await signedInUser(t, `oauth-conn${++users}@example.com`);
  return { c, key: await newApiKey(c, "connections") };
}

async function connection(c: Client, name: string): Promise<ConnectionView | undefined> {
  return ((await (await c.get("/api/connections")).json()) as ConnectionView[]).find((x) => x.name === name);
}

async function waitForConnection(c: Client, name: string, want: string, timeoutMs = 30_000): Promise<ConnectionView> {
  let last: ConnectionView | undefined;
  try {
    return await waitFor(
      `connection ${name}`,
      async () => {
        last = await connection(c, name);
        return last?.status === want ? last : undefined;
      },
      timeoutMs,
    );
  } catch {
    throw new Error(`connection ${name} did not reach ${want}: last ${last?.status} ${last?.status_detail ?? ""}`);
  }
}

/** The upstream's consent page, filled in as a browser would: where it sends the browser back. */
async function consent(authorizeUrl: string, as: string, decision: "allow" | "deny" = "allow"): Promise<URL> {
  const pageRes = await fetch(authorizeUrl, { redirect: "manual" });
  expect(pageRes.status, await pageRes.clone().text()).toBe(200);
  const html = await pageRes.text();
  expect(html).toContain("Switchboard asks to use your tools");
  const request = /name="request" value="([^"]+)"/.exec(html)![1]!;
  const back = await fetch(new URL("/consent", authorizeUrl), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ request, user: as, decision }),
  });
  expect(back.status).toBe(302);
  return new URL(back.headers.get("location")!);
}

/** Starts a sign-in for a new connection and answers the consent page's URL. */
async function begin(c: Client, name: string): Promise<string> {
  const r = await c.post("/api/connections", { name, url: up.url, oauth: true });
  expect(r.status, await r.clone().text()).toBe(200);
  const body = (await r.json()) as { authorize_url: string; message: string };
  expect(body.message).toBe(CONNECTION_TEXT.signingIn);
  return body.authorize_url;
}

async function finish(c: Client, back: URL): Promise<Response> {
  return c.post("/api/connections/authorized", {
    state: back.searchParams.get("state") ?? "",
    code: back.searchParams.get("code") ?? undefined,
    error: back.searchParams.get("error") ?? undefined,
  });
}

/** A connection signed in as `as`, running. */
async function signedInConnection(c: Client, name: string, as: string): Promise<ConnectionView> {
  const r = await finish(c, await consent(await begin(c, name), as));
  expect(r.status, await r.clone().text()).toBe(202);
  return waitForConnection(c, name, "running");
}

async function whoami(url: string, key: string): Promise<string> {
  const client = await sdkClient(url, key);
  try {
    return textOf(await client.callTool({ name: "whoami", arguments: {} }));
  } finally {
    await client.close();
  }
}

describe("Connections signed in with OAuth", () => {
  it("signs in through the server's consent with registration, PKCE and resource; each user's calls carry their own grant; no token is shown", async () => {
    const a = await user();
    const b = await user();
    const authorize = new URL(await begin(a.c, "upstream"));
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authorize.searchParams.get("resource")).toBe(up.url);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${t.config.PUBLIC_URL}/connections/oauth/callback`);
    expect(up.registrations).toBeGreaterThan(0);
    // Nothing exists until the browser comes back.
    expect(await connection(a.c, "upstream")).toBeUndefined();

    // The browser comes back to the page, which makes the connection and opens it.
    const back = await consent(authorize.href, "alice");
    expect(back.pathname).toBe("/connections/oauth/callback");
    const page = await a.c.get(`${back.pathname}${back.search}`);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe("/connections/upstream");
    const conn = await waitForConnection(a.c, "upstream", "running");
    expect(conn.auth).toBe("oauth");
    expect(conn.header_names).toEqual([]);
    expect(up.resources).toContain(up.url);

    const other = await signedInConnection(b.c, "upstream", "bob");
    expect(await whoami(conn.url, a.key)).toBe("signed in as alice");
    expect(await whoami(other.url, b.key)).toBe("signed in as bob");
    // Another user's key does not reach it.
    await expect(whoami(conn.url, b.key)).rejects.toThrow();

    // Tokens are never shown: not in the API, not on the page.
    const tokens = up.bearers.filter((h) => h.startsWith("Bearer at-")).map((h) => h.slice(7));
    expect(tokens.length).toBeGreaterThan(0);
    const seen = (await (await a.c.get("/api/connections")).text()) + (await (await a.c.get("/connections/upstream")).text());
    for (const token of tokens) expect(seen).not.toContain(token);
    expect(seen).toContain(CONNECTION_TEXT.usesOAuth);
  });

  it("uses a sign-in once, only for the user who started it, and says so when the server's consent is declined", async () => {
    const a = await user();
    const b = await user();
    const back = await consent(await begin(a.c, "once"), "alice");
    // Another user who got hold of the browser's callback gets nothing.
    const stolen = await finish(b.c, back);
    expect(stolen.status).toBe(400);
    expect(((await stolen.json()) as { error: string }).error).toBe(CONNECTION_TEXT.signInExpired);
    expect(await connection(b.c, "once")).toBeUndefined();
    expect((await finish(a.c, back)).status).toBe(202);
    // Replayed: used already.
    const replay = await finish(a.c, back);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe(CONNECTION_TEXT.signInExpired);

    const declined = await consent(await begin(a.c, "declined"), "alice", "deny");
    const page = await a.c.get(`${declined.pathname}${declined.search}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(CONNECTION_TEXT.signInDeclined("access_denied").replace(/'/g, "&#x27;"));
    expect(await connection(a.c, "declined")).toBeUndefined();

    // With OAuth, Switchboard sends Authorization itself.
    const both = await a.c.post("/api/connections", { name: "both", url: up.url, oauth: true, headers: { Authorization: "Bearer x" } });
    expect(both.status).toBe(400);
    expect(await both.text()).toContain(CONNECTION_TEXT.oauthWithAuthorization.replace(/"/g, '\\"'));
  });

  it("refreshes an expired token by itself, once for calls that find it expired together", async () => {
    const a = await user();
    // Short enough to expire within the test, long enough that a refreshed token is still fresh when
    // the retried calls reach the server on a loaded machine (a refused fresh token means: sign in again).
    up.accessTtlSec = 3;
    try {
      const conn = await signedInConnection(a.c, "refreshing", "carol");
      expect(await whoami(conn.url, a.key)).toBe("signed in as carol");
      await new Promise((r) => setTimeout(r, 3500));
      const before = up.refreshes;
      const client = await sdkClient(conn.url, a.key);
      try {
        const answers = await Promise.all(Array.from({ length: 5 }, () => client.callTool({ name: "whoami", arguments: {} })));
        expect(answers.map(textOf)).toEqual(Array(5).fill("signed in as carol"));
      } finally {
        await client.close();
      }
      expect(up.refreshes - before).toBe(1);
      expect((await connection(a.c, "refreshing"))?.status).toBe("running");
      // The refreshed grant was stored: restarted, the connection goes on with it (the first refresh
      // token was spent, and presenting it again would end the sign-in).
      up.accessTtlSec = 3600;
      expect((await a.c.post(`/api/deployments/${conn.id}/restart`)).status).toBeLessThan(300);
      await waitForConnection(a.c, "refreshing", "running");
      expect(await whoami(conn.url, a.key)).toBe("signed in as carol");
    } finally {
      up.accessTtlSec = 3600;
    }
  });

  it("fails with 'sign in again' when the server revokes the grant, does not reconnect in a loop, and signing in again restores the same URL", async () => {
    const a = await user();
    const conn = await signedInConnection(a.c, "revoked", "dave");
    expect(await whoami(conn.url, a.key)).toBe("signed in as dave");
    up.revokeAll();
    await expect(whoami(conn.url, a.key)).rejects.toThrow();
    const failed = await waitForConnection(a.c, "revoked", "failed");
    expect(failed.status_detail).toBe(CONNECTION_TEXT.signInAgain);
    const refreshes = up.refreshes;
    await new Promise((r) => setTimeout(r, 1000));
    expect(up.refreshes).toBe(refreshes);
    expect((await connection(a.c, "revoked"))?.status).toBe("failed");
    // The page offers to sign in again.
    expect(await (await a.c.get("/connections/revoked")).text()).toContain(CONNECTION_TEXT.signIn);

    // The page's form (no JavaScript needed) sends the browser to the server's consent.
    const again = await t.app.request(`${t.config.PUBLIC_URL}/connections/revoked`, {
      method: "POST",
      headers: { cookie: a.c.jar.header(), origin: t.config.PUBLIC_URL, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "sign-in", connection: conn.id }),
    });
    expect(again.status).toBe(303);
    const authorizeUrl = again.headers.get("location")!;
    expect(authorizeUrl.startsWith(`${new URL(up.url).origin}/authorize?`)).toBe(true);
    const back = await consent(authorizeUrl, "dave");
    expect((await finish(a.c, back)).status).toBe(202);
    const restored = await waitForConnection(a.c, "revoked", "running");
    expect(restored.url).toBe(conn.url);
    expect(restored.id).toBe(conn.id);
    expect(await whoami(conn.url, a.key)).toBe("signed in as dave");
  });

  it("revokes its tokens at the server when the connection is removed", async () => {
    const a = await user();
    const conn = await signedInConnection(a.c, "removed", "erin");
    expect(await whoami(conn.url, a.key)).toBe("signed in as erin");
    const revokedBefore = up.revoked.length;
    expect((await a.c.del(`/api/connections/${conn.id}`)).status).toBe(200);
    const revoked = up.revoked.slice(revokedBefore);
    expect(revoked.some((x) => x.startsWith("rt-"))).toBe(true);
    expect(revoked.some((x) => x.startsWith("at-"))).toBe(true);
  });

  it("revokes its tokens at the server when the account is deleted", async () => {
    const email = `oauth-leaving${++users}@example.com`;
    const c = await signedInUser(t, email);
    await signedInConnection(c, "leaving", "heidi");
    const revokedBefore = up.revoked.length;
    const r = await c.del(`/api/users/${c.id}`, { confirmEmail: email });
    expect(r.status, await r.clone().text()).toBe(200);
    expect(up.revoked.slice(revokedBefore).some((x) => x.startsWith("rt-"))).toBe(true);
  });

  it("refuses a server whose metadata sends it to an address no connection may reach, before anything is sent there", async () => {
    // Hostile: its 401 names its own metadata, which names the cloud metadata address as its authorization server.
    let port = 0;
    const seen: string[] = [];
    const hostile = http.createServer((req, res) => {
      seen.push(req.url ?? "");
      if (req.url?.startsWith("/.well-known/oauth-protected-resource")) {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(
          JSON.stringify({ resource: `http://127.0.0.1:${port}/mcp`, authorization_servers: ["https://169.254.169.254/latest"] }),
        );
      }
      res.writeHead(401, {
        "www-authenticate": `Bearer resource_metadata="http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp"`,
      });
      res.end();
    });
    await new Promise<void>((r) => hostile.listen(0, "127.0.0.1", () => r()));
    port = (hostile.address() as net.AddressInfo).port;
    try {
      const a = await user();
      const r = await a.c.post("/api/connections", { name: "hostile", url: `http://127.0.0.1:${port}/mcp`, oauth: true });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toContain(CONNECTION_TEXT.refusedAddress("169.254.169.254"));
      expect(seen.some((u) => u.startsWith("/.well-known/oauth-protected-resource"))).toBe(true);
      expect(await connection(a.c, "hostile")).toBeUndefined();
    } finally {
      hostile.close();
      hostile.closeAllConnections();
    }
  });

  it("connects a catalogue entry its publisher hosts with OAuth, the entry's page offering it", async () => {
    const a = await user();
    await addCatalogEntry(t, "oauth-entry", null);
    await t.db.database.db.execute(sql`update mcp_servers set url = ${up.url} where id = 'oauth-entry'`);
    expect(await (await a.c.get("/server/oauth-entry")).text()).toContain(CONNECTION_TEXT.oauthLabel);
    const r = await a.c.post("/api/connections", { server_id: "oauth-entry", oauth: true });
    expect(r.status).toBe(200);
    const back = await consent(((await r.json()) as { authorize_url: string }).authorize_url, "grace");
    const page = await a.c.get(`${back.pathname}${back.search}`);
    expect(page.headers.get("location")).toBe("/server/oauth-entry");
    const conn = await waitForConnection(a.c, "oauth-entry", "running");
    expect(conn.entry).toBe("oauth-entry");
    expect(await whoami(conn.url, a.key)).toBe("signed in as grace");
  });

  it("presents itself with its client ID metadata document where the authorization server takes one (an https PUBLIC_URL)", async () => {
    const cimdUp = await startOAuthUpstream("127.0.0.1", { cimd: true });
    const https = await createTestApp({ PUBLIC_URL: "https://switchboard.example", SANDBOX_EGRESS_ALLOW: "127.0.0.1" });
    try {
      const doc = await https.app.request("https://switchboard.example/oauth/connections-client.json");
      expect(doc.status).toBe(200);
      const body = (await doc.json()) as { client_id: string; redirect_uris: string[]; token_endpoint_auth_method: string };
      expect(body.client_id).toBe("https://switchboard.example/oauth/connections-client.json");
      expect(body.redirect_uris).toEqual(["https://switchboard.example/connections/oauth/callback"]);
      expect(body.token_endpoint_auth_method).toBe("none");
      // Over plain http there is no document (a client ID must be an https URL): registration instead.
      expect((await t.app.request(`${t.config.PUBLIC_URL}/oauth/connections-client.json`)).status).toBe(404);

      const c = await signedInUser(https, "cimd@example.com");
      const r = await c.post("/api/connections", { name: "cimd", url: cimdUp.url, oauth: true });
      expect(r.status, await r.clone().text()).toBe(200);
      const authorize = new URL(((await r.json()) as { authorize_url: string }).authorize_url);
      expect(authorize.searchParams.get("client_id")).toBe(body.client_id);
      expect(cimdUp.registrations).toBe(0);
    } finally {
      await https.close();
      await cimdUp.close();
    }
  });

  it.skipIf(!fs.existsSync(CHROMIUM))("signs in from the Connections page in Chromium, through the server's own consent page", async () => {
    const a = await user();
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
    });
    try {
      const context = await browser.newContext({ baseURL: t.config.PUBLIC_URL });
      await context.addCookies(
        a.c.jar
          .header()
          .split("; ")
          .map((pair) => ({ name: pair.slice(0, pair.indexOf("=")), value: pair.slice(pair.indexOf("=") + 1), url: t.config.PUBLIC_URL })),
      );
      const page = await context.newPage();
      await page.goto("/connections");
      await page.getByLabel(CONNECTION_TEXT.nameLabel).fill("browser");
      await page.getByLabel(CONNECTION_TEXT.urlLabel).fill(up.url);
      await page.getByLabel(CONNECTION_TEXT.oauthLabel).check();
      await page.getByRole("button", { name: CONNECTION_TEXT.connect, exact: true }).click();
      await page.getByRole("heading", { name: "Sign in to Upstream" }).waitFor();
      await page.getByLabel("Your name").fill("frank");
      await page.getByRole("button", { name: "Allow" }).click();
      await page.waitForURL(/\/connections\/browser$/);
      await page.getByText(CONNECTION_TEXT.usesOAuth).waitFor();
      await page.screenshot({ path: "/tmp/connection-oauth.png", fullPage: true });
      const conn = await waitForConnection(a.c, "browser", "running");
      expect(await whoami(conn.url, a.key)).toBe("signed in as frank");
    } finally {
      await browser.close();
    }
  });
});
