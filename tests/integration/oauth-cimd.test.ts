import { lookup } from "node:dns/promises";
import os from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "~/server/config.js";
import type { DeploymentView } from "~/shared/deployments.js";
import { startOAuthApp, type OAuthApp } from "../support/oauth-app.js";
import { startMetadataServer, startTrap, type MetadataServer } from "../support/oauth-client.js";
import { authorizeUrl, codeFlow, exchange, mcpInitialize, NATIVE_REDIRECT, pkce, type Answer, type HttpUser } from "../support/oauth.js";

// Clients known by a Client ID Metadata Document: the document is fetched (here from a local
// server, through the test-only OAUTH_CIMD_ALLOW_HTTP_LOOPBACK=on, which maps `https://*.test`
// to loopback http) and validated; a document that is too large, invalid, redirected or on a
// private address gets a clear error, and nothing is fetched from a private address.

let o: OAuthApp;
let alice: HttpUser;
let dep: DeploymentView;
let docs: MetadataServer;
let trap: Awaited<ReturnType<typeof startTrap>>;

beforeAll(async () => {
  o = await startOAuthApp({ OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: "on" });
  docs = await startMetadataServer();
  trap = await startTrap();
  alice = await o.user("alice@example.com");
  dep = await o.deploy(alice, "fixture");
}, 180_000);

afterAll(async () => {
  await docs?.close();
  await trap?.close();
  await o?.close();
});

const idFor = (path: string) => `https://client.test:${docs.port}${path}`;
const doc = (id: string, extra: Record<string, unknown> = {}) => ({
  client_id: id,
  client_name: "Doc Client",
  redirect_uris: [NATIVE_REDIRECT],
  token_endpoint_auth_method: "none",
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  ...extra,
});
const ask = (clientId: string, redirectUri = NATIVE_REDIRECT) =>
  alice.navigate(authorizeUrl(o.base, { clientId, resource: dep.url, redirectUri, state: "s", challenge: pkce().challenge }));

/** The client is refused with invalid_client and a description saying why; the browser is never sent to the client. */
function refusedClient(a: Answer, why: RegExp) {
  expect(a.location ?? "").not.toContain("127.0.0.1:33418");
  if (a.location) {
    const u = new URL(a.location, o.base);
    expect(u.origin).toBe(o.base);
    expect(u.searchParams.get("error")).toBe("invalid_client");
    expect(u.searchParams.get("error_description")).toMatch(why);
  } else {
    expect(a.status, a.text).toBe(400);
    expect(a.json()).toMatchObject({ error: "invalid_client", error_description: expect.stringMatching(why) });
  }
}

describe("a client known by its metadata document", () => {
  it("is fetched, named on consent by its document, and gets a token that works on the deployment", async () => {
    const id = idFor("/good.json");
    docs.set("/good.json", doc(id));
    const f = await codeFlow(alice, { clientId: id, resource: dep.url });
    expect(docs.hits).toContain("/good.json");
    expect(f.consent?.status, f.consent?.text).toBe(200);
    expect(f.callback?.searchParams.get("iss")).toBe(o.issuer);
    const t = await exchange(o.base, id, f, dep.url);
    expect((await mcpInitialize(dep.url, t.access_token)).status).toBe(200);
    const apps = (await alice.get("/api/auth/connected-apps")).json<{ data: { clientName: string; redirectHost: string }[] }>().data;
    expect(apps).toContainEqual(expect.objectContaining({ clientName: "Doc Client", redirectHost: "127.0.0.1:33418" }));
  });

  it("redirect URIs are the document's: another path is refused on the error page, another loopback port is fine", async () => {
    const id = idFor("/paths.json");
    docs.set("/paths.json", doc(id));
    const other = await ask(id, "http://127.0.0.1:33418/elsewhere");
    expect(new URL(other.location!, o.base).origin).toBe(o.base);
    expect(new URL(other.location!, o.base).searchParams.get("error")).toBe("invalid_redirect");
    const port = await ask(id, "http://127.0.0.1:9999/callback");
    expect(new URL(port.location!, o.base).pathname).toBe("/oauth/consent");
  });

  it("a document over 5 KB is refused with a clear error", async () => {
    for (const [path, size] of [
      ["/big.json", 6 * 1024],
      ["/huge.json", 200 * 1024],
    ] as const) {
      const id = idFor(path);
      docs.set(path, doc(id, { padding: "x".repeat(size) }));
      refusedClient(await ask(id), /exceeds 5KB size limit/);
    }
  });

  it("an invalid document is refused with a clear error: another client_id, no redirect_uris, a secret-bearing method", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["/mismatch.json", { client_id: idFor("/someone-else.json") }, /does not match the metadata document URL/],
      ["/no-redirects.json", { redirect_uris: undefined }, /redirect_uris must be a non-empty array/],
      ["/secret.json", { token_endpoint_auth_method: "client_secret_post", client_secret: "s" }, /MUST NOT contain "client_secret"/],
    ];
    for (const [path, extra, why] of cases) {
      const id = idFor(path);
      docs.set(path, doc(id, extra));
      refusedClient(await ask(id), why);
    }
    docs.set("/not-json.json", "<html>hello</html>");
    refusedClient(await ask(idFor("/not-json.json")), /not valid JSON/);
    refusedClient(await ask(idFor("/missing.json")), /HTTP 404/);
  });
});

describe("a metadata document on a private address", () => {
  it("is refused with a clear error and nothing is fetched from that address", async () => {
    const ids = [
      `https://127.0.0.1:${trap.port}/client.json`,
      `https://[::1]:${trap.port}/client.json`,
      `https://localhost:${trap.port}/client.json`,
      "https://10.0.0.1/client.json",
      "https://192.168.1.1/client.json",
      "https://169.254.169.254/latest/client.json",
    ];
    for (const id of ids) refusedClient(await ask(id), /must not target a private or reserved address/);
    // A public-looking name that resolves to this machine: only the resolved address gives it away.
    const name = os.hostname();
    const resolved = await lookup(name).catch(() => null);
    if (resolved && /^127\./.test(resolved.address))
      refusedClient(await ask(`https://${name}:${trap.port}/client.json`), /not permitted by the server's fetch policy/);
    expect(trap.connections()).toBe(0);
  });

  it("a public document that redirects elsewhere is not followed", async () => {
    const id = idFor("/moved.json");
    docs.redirect("/moved.json", `http://127.0.0.1:${trap.port}/client.json`);
    refusedClient(await ask(id), /HTTP 302/);
    expect(trap.connections()).toBe(0);
  });

  it("a client_id that is an http URL is not a metadata document (unknown client, error page)", async () => {
    docs.set("/plain-http.json", doc(`http://client.test:${docs.port}/plain-http.json`));
    const before = docs.hits.length;
    const a = await ask(`http://client.test:${docs.port}/plain-http.json`);
    expect(new URL(a.location!, o.base).origin).toBe(o.base);
    expect(new URL(a.location!, o.base).searchParams.get("error")).toBe("invalid_client");
    expect(docs.hits.length).toBe(before);
  });

  it("the loopback setting is refused in production", () => {
    expect(() => loadConfig({ NODE_ENV: "production", OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: "on" })).toThrow(ConfigError);
    expect(() => loadConfig({ NODE_ENV: "production", OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: "on" })).toThrow(/OAUTH_CIMD_ALLOW_HTTP_LOOPBACK/);
  });
});
