import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { startOAuthApp, type OAuthApp } from "../support/oauth-app.js";
import { MemoryProvider, startMetadataServer, type MetadataServer } from "../support/oauth-client.js";
import { sdkJourney } from "../support/oauth-journey.js";
import { SDK_V2 } from "../support/oauth-sdk-v2.js";
import { consentQuery, type HttpUser } from "../support/oauth.js";

// The official MCP SDK clients' OAuth support (@modelcontextprotocol/sdk, and the v2
// @modelcontextprotocol/client), end to end against a deployed server over real HTTP; the person's
// approval is the consent page's JSON post (the browser-driven run is tests/e2e/oauth.test.ts).

let o: OAuthApp;
let alice: HttpUser;
let dep: DeploymentView;
let docs: MetadataServer;

beforeAll(async () => {
  o = await startOAuthApp({ OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: "on" });
  docs = await startMetadataServer();
  alice = await o.user("alice@example.com");
  dep = await o.deploy(alice, "fixture");
}, 180_000);

afterAll(async () => {
  await docs?.close();
  await o?.close();
});

/** The person, signed in, opens the authorization URL and clicks Approve on the consent page. */
async function approve(url: URL): Promise<URL> {
  const a = await alice.navigate(url.href);
  if (!a.location) throw new Error(`authorize: ${a.status} ${a.text.slice(0, 300)}`);
  const next = new URL(a.location, o.base);
  if (next.pathname !== "/oauth/consent") return next;
  const c = await alice.post("/api/auth/oauth2/consent", { accept: true, oauth_query: consentQuery(a.location) });
  if (!c.location) throw new Error(`consent: ${c.status} ${c.text.slice(0, 300)}`);
  return new URL(c.location);
}

async function revoke(clientName: string) {
  const apps = (await alice.get("/api/auth/connected-apps")).json<{
    data: { id: string; clientName: string; deployment: { proxyId: string } | null }[];
  }>().data;
  const app = apps.find((a) => a.clientName === clientName && a.deployment?.proxyId === dep.proxy_id);
  expect(app, JSON.stringify(apps)).toBeDefined();
  const r = await alice.del(`/api/auth/connected-apps/${encodeURIComponent(app!.id)}`);
  expect(r.status, r.text).toBe(200);
}

describe("the official MCP SDK client (v1) with OAuth", () => {
  it("registers by Dynamic Client Registration, connects, refreshes, and is cut off when revoked", { timeout: 60_000 }, async () => {
    const provider = new MemoryProvider({ redirectUri: "http://127.0.0.1:33418/callback", clientName: "SDK client (DCR)" });
    await sdkJourney({ url: dep.url, base: o.base, provider, registration: "dcr", approve, revoke: () => revoke("SDK client (DCR)") });
  });

  it("registers by Client ID Metadata Document, connects, refreshes, and is cut off when revoked", { timeout: 60_000 }, async () => {
    const clientMetadataUrl = `https://client.test:${docs.port}/sdk-client.json`;
    const provider = new MemoryProvider({
      redirectUri: "http://127.0.0.1:33419/callback",
      clientName: "SDK client (CIMD)",
      clientMetadataUrl,
    });
    docs.set("/sdk-client.json", { client_id: clientMetadataUrl, ...provider.clientMetadata });
    await sdkJourney({ url: dep.url, base: o.base, provider, registration: "cimd", approve, revoke: () => revoke("SDK client (CIMD)") });
    expect(docs.hits).toContain("/sdk-client.json");
  });
});

describe("the official MCP SDK v2 client (@modelcontextprotocol/client) with OAuth", () => {
  it("registers by Dynamic Client Registration, connects, refreshes, and is cut off when revoked", { timeout: 60_000 }, async () => {
    const provider = new MemoryProvider({ redirectUri: "http://127.0.0.1:33420/callback", clientName: "SDK v2 client (DCR)" });
    await sdkJourney({
      url: dep.url,
      base: o.base,
      provider,
      registration: "dcr",
      approve,
      revoke: () => revoke("SDK v2 client (DCR)"),
      kit: SDK_V2,
    });
  });

  it("registers by Client ID Metadata Document, connects, refreshes, and is cut off when revoked", { timeout: 60_000 }, async () => {
    const clientMetadataUrl = `https://client.test:${docs.port}/sdk-v2-client.json`;
    const provider = new MemoryProvider({
      redirectUri: "http://127.0.0.1:33421/callback",
      clientName: "SDK v2 client (CIMD)",
      clientMetadataUrl,
    });
    docs.set("/sdk-v2-client.json", { client_id: clientMetadataUrl, ...provider.clientMetadata });
    await sdkJourney({
      url: dep.url,
      base: o.base,
      provider,
      registration: "cimd",
      approve,
      revoke: () => revoke("SDK v2 client (CIMD)"),
      kit: SDK_V2,
    });
  });
});
