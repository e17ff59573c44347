import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { DOMAIN_TEXT, type DomainsPage, type DomainView } from "~/shared/domains.js";
import { startTestDns, type TestDns } from "~support/dns-server.js";
import { fetchVia } from "~support/host-fetch.js";
import { startOAuthApp, type OAuthApp } from "~support/oauth-app.js";
import { MemoryProvider, connectWithOAuth, type FetchLog } from "~support/oauth-client.js";
import { NATIVE_REDIRECT, consentQuery, send, type HttpUser } from "~support/oauth.js";
import { waitFor } from "~support/wait.js";

// Custom domains (issue 37, item 1) on a real app over HTTP: TXT records served by a DNS server of
// the test's own (CUSTOM_DOMAIN_RESOLVERS), requests routed by their Host, and the official SDK
// client - with an API key, and with OAuth from the 401's discovery on - at the custom URL.

const DOMAIN = "mcp.example.test";
let o: OAuthApp;
let dns: TestDns;
let alice: HttpUser;
let bob: HttpUser;
let dep: DeploymentView;
let key: string;
let port: string;
let custom: string;

const sweep = (everyMs = 0) => o.t.services.domains.sweep(everyMs);
/** A request to this machine as if DNS pointed `host` at it. */
const at = (host: string, path: string, opts: Parameters<typeof send>[1] = {}) =>
  send(`${o.base}${path}`, { ...opts, headers: { host: `${host}:${port}`, ...opts.headers } });
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};
const initializeOpts = (authorization?: string) => ({
  method: "POST",
  origin: false as const,
  json: INITIALIZE,
  headers: { accept: "application/json, text/event-stream", ...(authorization ? { authorization } : {}) },
});
/** initialize at the custom domain `host`, or (`host` undefined) at the deployment's own URL */
const initialize = (host: string | undefined, authorization?: string) =>
  host ? at(host, "/mcp", initializeOpts(authorization)) : send(dep.url, initializeOpts(authorization));

beforeAll(async () => {
  dns = await startTestDns();
  o = await startOAuthApp({ CUSTOM_DOMAIN_RESOLVERS: dns.address, CUSTOM_DOMAIN_GRACE_MS: "1000" });
  port = new URL(o.base).port;
  custom = `http://${DOMAIN}:${port}`;
  alice = await o.user("alice@example.com");
  bob = await o.user("bob@example.com");
  dep = await o.deploy(alice, "fixture");
  const k = await alice.post("/api/auth/apikeys", { name: "domains", scopes: ["mcp"] });
  key = k.json<{ apiKey: string }>().apiKey;
}, 180_000);

afterAll(async () => {
  await o?.close();
  await dns?.close();
});

describe("custom domains", () => {
  it("are Pro's: a Free owner is refused, and sees so", async () => {
    const r = await alice.post(`/api/deployments/${dep.id}/domains`, { domain: DOMAIN });
    expect(r.status).toBe(403);
    expect(r.json<{ error: string }>().error).toBe(DOMAIN_TEXT.proOnly);
    expect((await alice.get(`/api/deployments/${dep.id}/domains`)).json<DomainsPage>()).toMatchObject({ plan: "free", domains: [] });
    const page = await alice.get("/server/alice/fixture");
    expect(page.text).toContain(DOMAIN_TEXT.proOnly);
  });

  it("are added pending, with the TXT record to publish; a bad name, this site's own, or another's domain is refused", async () => {
    await o.pro(alice);
    for (const bad of [
      "not a domain",
      "localhost",
      "127.0.0.1",
      "-x.example.com",
      "a..b.example.com",
      "x.example.123",
      "a".repeat(64) + ".example.com",
    ]) {
      const r = await alice.post(`/api/deployments/${dep.id}/domains`, { domain: bad });
      expect(r.status, bad).toBe(400);
    }
    const r = await alice.post(`/api/deployments/${dep.id}/domains`, { domain: "MCP.Example.Test." });
    expect(r.status, r.text).toBe(201);
    const added = r.json<DomainView>();
    expect(added).toMatchObject({
      domain: DOMAIN,
      status: "pending",
      url: `${custom}/mcp`,
      txt: { name: `_switchboard-challenge.${DOMAIN}` },
      // ...and routes here by a CNAME to PUBLIC_URL's host.
      cname: { name: DOMAIN, value: new URL(o.base).hostname },
    });
    expect((await alice.get(`/api/deployments/${dep.id}/domains`)).json<DomainsPage>().host).toBe(new URL(o.base).hostname);
    expect(added.txt.value).toMatch(/^switchboard-verify=[A-Za-z0-9_-]{24}$/);

    // The page shows the record to publish, without JavaScript; its forms post to the page.
    const html = (await alice.get("/server/alice/fixture")).text;
    expect(html).toContain(`_switchboard-challenge.${DOMAIN}`);
    expect(html).toContain(added.txt.value);
    expect(html).toContain(DOMAIN_TEXT.cnameName);
    expect(html).toContain(DOMAIN_TEXT.intro(new URL(o.base).hostname));
    expect(html).toContain(DOMAIN_TEXT.status.pending);
    const post = (fields: Record<string, string>) =>
      alice.request("POST", "/server/alice/fixture", { form: { deployment: dep.id, ...fields } });
    expect((await post({ intent: "domain-add", domain: "second.example.test" })).status).toBe(303);
    expect((await alice.get(`/api/deployments/${dep.id}/domains`)).json<DomainsPage>().domains.map((d) => d.domain)).toEqual([
      DOMAIN,
      "second.example.test",
    ]);
    const refused = await post({ intent: "domain-add", domain: "no spaces.example.test" });
    expect(refused.status).toBe(200);
    expect(refused.text).toContain(DOMAIN_TEXT.invalid);
    expect((await post({ intent: "domain-remove", domain: "second.example.test" })).status).toBe(303);
    expect((await alice.get(`/api/deployments/${dep.id}/domains`)).json<DomainsPage>().domains).toHaveLength(1);

    // Unique across users, whatever the case; Bob cannot see or touch Alice's.
    await o.pro(bob);
    const bobs = await o.deploy(bob, "fixture");
    const taken = await bob.post(`/api/deployments/${bobs.id}/domains`, { domain: "mcp.EXAMPLE.test" });
    expect(taken.status).toBe(409);
    expect(taken.json<{ error: string }>().error).toBe(DOMAIN_TEXT.taken);
    expect((await bob.get(`/api/deployments/${dep.id}/domains`)).status).toBe(404);
    expect((await bob.del(`/api/deployments/${dep.id}/domains/${DOMAIN}`)).status).toBe(404);
    expect((await bob.post(`/api/deployments/${dep.id}/domains/${DOMAIN}/verify`)).status).toBe(404);
    await bob.del(`/api/deployments/${bobs.id}`);
  }, 120_000);

  it("route nothing until verified: no record, a wrong one, then the right one", async () => {
    const notYet = await alice.post(`/api/deployments/${dep.id}/domains/${DOMAIN}/verify`);
    expect(notYet.status).toBe(409);
    expect(notYet.json<{ error: string }>().error).toBe(DOMAIN_TEXT.notYet(`_switchboard-challenge.${DOMAIN}`));
    expect((await initialize(DOMAIN, `Bearer ${key}`)).status).toBe(404);
    expect((await send(`${o.base}/api/custom-domains/allowed?domain=${DOMAIN}`)).status).toBe(404);

    const [d] = (await alice.get(`/api/deployments/${dep.id}/domains`)).json<DomainsPage>().domains;
    dns.txt.set(`_switchboard-challenge.${DOMAIN}`, ["switchboard-verify=somebody-elses-token"]);
    expect((await alice.post(`/api/deployments/${dep.id}/domains/${DOMAIN}/verify`)).status).toBe(409);
    dns.txt.set(`_switchboard-challenge.${DOMAIN}`, ["v=spf1 -all", d!.txt.value]);
    const ok = await alice.post(`/api/deployments/${dep.id}/domains/${DOMAIN}/verify`);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json<DomainView>()).toMatchObject({ status: "verified" });
    expect(dns.asked).toContain(`TXT _switchboard-challenge.${DOMAIN}`);

    // The TLS proxy's question: this site, and a verified domain; nothing else.
    expect((await send(`${o.base}/api/custom-domains/allowed?domain=${DOMAIN}`)).status).toBe(200);
    expect((await send(`${o.base}/api/custom-domains/allowed?domain=other.example.test`)).status).toBe(404);
  });

  it("serves the deployment at https://<domain>/mcp to the SDK client with an API key, and nothing of the web app", async () => {
    const client = new Client({ name: "custom-domain", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${custom}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${key}` } },
        fetch: fetchVia(DOMAIN),
      }),
    );
    const r = await client.callTool({ name: "echo", arguments: { message: "at my domain" } });
    expect((r as { content: { text: string }[] }).content[0]!.text).toBe("at my domain");
    await client.close();

    // Without a credential: the 401 names the metadata at the domain, which names the domain's URL.
    const anon = await initialize(DOMAIN);
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toContain(`resource_metadata="${custom}/.well-known/oauth-protected-resource/mcp"`);
    const meta = (await at(DOMAIN, "/.well-known/oauth-protected-resource/mcp")).json<{
      resource: string;
      authorization_servers: string[];
    }>();
    expect(meta).toMatchObject({ resource: `${custom}/mcp`, authorization_servers: [`${o.base}/api/auth`] });

    // A user's domain never serves the site's pages or API (their cookies would be its owner's).
    for (const path of ["/", "/login", "/api/auth/get-session", "/server/alice/fixture", `/${"0".repeat(32)}/mcp`]) {
      const r = await at(DOMAIN, path, { cookie: alice.jar.header() });
      expect(r.status, path).toBe(404);
      expect(r.headers.get("set-cookie"), path).toBeNull();
    }
    // Another origin's page may not call it from a browser.
    expect(
      (await at(DOMAIN, "/mcp", { method: "POST", json: {}, origin: "https://evil.example", headers: { authorization: `Bearer ${key}` } }))
        .status,
    ).toBe(403);
  });

  it("lets an OAuth client discover, get a token for the domain's URL and connect; a token for the site's URL does not open it", async () => {
    const provider = new MemoryProvider({ redirectUri: NATIVE_REDIRECT, clientName: "SDK at a custom domain" });
    const via = fetchVia(DOMAIN);
    const log: FetchLog = {
      entries: [],
      fetch: async (url, init) => {
        const res = await via(url, init);
        log.entries.push({
          method: init?.method ?? "GET",
          url: String(url),
          status: res.status,
          wwwAuthenticate: res.headers.get("www-authenticate"),
        });
        return res;
      },
    };
    const approve = async (url: URL) => {
      const a = await alice.navigate(url.href);
      const next = new URL(a.location!, o.base);
      if (next.pathname !== "/oauth/consent") return next;
      // The consent page names the URL the client asked for: the custom one.
      expect((await alice.get(`${next.pathname}${next.search}`)).text).toContain(`${custom}/mcp`);
      const c = await alice.post("/api/auth/oauth2/consent", { accept: true, oauth_query: consentQuery(a.location!) });
      return new URL(c.location!);
    };
    const client = await connectWithOAuth(`${custom}/mcp`, provider, approve, `${o.base}/api/auth`, log);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
    await client.close();
    expect(provider.authorizationUrls[0]!.searchParams.getAll("resource")).toEqual([`${custom}/mcp`]);
    const token = provider.stored!.access_token;
    // Bound to the domain's URL: the same deployment at the site's URL refuses it.
    const atSite = await initialize(undefined, `Bearer ${token}`);
    expect(atSite.status).toBe(401);
    expect((await initialize(DOMAIN, `Bearer ${token}`)).status).toBe(200);
  }, 60_000);

  it("is suspended once its TXT record has been gone past the grace period, and serves again when it is back", async () => {
    dns.txt.delete(`_switchboard-challenge.${DOMAIN}`);
    expect(await sweep()).toMatchObject({ suspended: 0 });
    expect((await initialize(DOMAIN, `Bearer ${key}`)).status).toBe(200); // within the grace period
    await new Promise((r) => setTimeout(r, 1100));
    expect(await sweep()).toMatchObject({ suspended: 1 });
    expect((await alice.get(`/api/deployments/${dep.id}/domains`)).json<DomainsPage>().domains[0]!.status).toBe("suspended");
    await waitFor("routing stops", async () => (await initialize(DOMAIN, `Bearer ${key}`)).status === 404 || undefined, 10_000, 100);
    expect((await send(`${o.base}/api/custom-domains/allowed?domain=${DOMAIN}`)).status).toBe(404);

    const [d] = (await alice.get(`/api/deployments/${dep.id}/domains`)).json<DomainsPage>().domains;
    dns.txt.set(`_switchboard-challenge.${DOMAIN}`, [d!.txt.value]);
    expect(await sweep()).toMatchObject({ verified: 1 });
    await waitFor("routing again", async () => (await initialize(DOMAIN, `Bearer ${key}`)).status === 200 || undefined, 10_000, 100);
  });

  it("stops routing when its owner leaves Pro, and routes again once they are back and verify", async () => {
    const pool = o.t.db.database.pool;
    await pool.query("update subscriptions set status = 'canceled' where user_id = $1", [alice.id]);
    expect(await sweep()).toMatchObject({ suspended: 1 });
    expect((await initialize(DOMAIN, `Bearer ${key}`)).status).toBe(404);
    await pool.query("update subscriptions set status = 'active' where user_id = $1", [alice.id]);
    expect((await alice.post(`/api/deployments/${dep.id}/domains/${DOMAIN}/verify`)).status).toBe(200);
    expect((await initialize(DOMAIN, `Bearer ${key}`)).status).toBe(200);
  });

  it("a claim never proved gives way to someone who proves control", async () => {
    const bobs = await o.deploy(bob, "squatter");
    const claim = await bob.post(`/api/deployments/${bobs.id}/domains`, { domain: "squat.example.test" });
    expect(claim.status).toBe(201);
    // Bob's record is published, but he lets the claim lapse unverified.
    dns.txt.set("_switchboard-challenge.squat.example.test", [claim.json<DomainView>().txt.value]);
    // Within the hour it holds; after it, a new claim (with a token of its own) takes its place.
    expect((await alice.post(`/api/deployments/${dep.id}/domains`, { domain: "squat.example.test" })).status).toBe(409);
    await o.t.db.database.pool.query(
      "update custom_domains set created_at = now() - interval '2 hours' where domain = 'squat.example.test'",
    );
    const mine = await alice.post(`/api/deployments/${dep.id}/domains`, { domain: "squat.example.test" });
    expect(mine.status, mine.text).toBe(201);
    expect((await bob.get(`/api/deployments/${bobs.id}/domains`)).json<DomainsPage>().domains).toEqual([]);
    // The record still there is Bob's token, not Alice's: neither a check nor Verify proves her claim with it.
    expect(await sweep()).toMatchObject({ verified: 0 });
    expect((await alice.post(`/api/deployments/${dep.id}/domains/squat.example.test/verify`)).status).toBe(409);
    expect((await initialize("squat.example.test", `Bearer ${key}`)).status).toBe(404);
    dns.txt.delete("_switchboard-challenge.squat.example.test");
    expect((await alice.del(`/api/deployments/${dep.id}/domains/squat.example.test`)).status).toBe(204);
    await bob.del(`/api/deployments/${bobs.id}`);
  }, 90_000);

  it("removed, it stops routing at once here and its OAuth tokens go; the deployment's own URL keeps working", async () => {
    const r = await alice.del(`/api/deployments/${dep.id}/domains/${DOMAIN}`);
    expect(r.status).toBe(204);
    // Nobody's domain now, though the TLS proxy may still hold its certificate: nothing is served there.
    for (const path of ["/mcp", "/", "/login"]) expect((await at(DOMAIN, path)).status, path).toBe(404);
    expect((await alice.get(`/api/deployments/${dep.id}/domains`)).json<DomainsPage>().domains).toEqual([]);
    const left = await o.t.db.database.pool.query("select count(*)::int as n from oauth_access_token where resources::text like $1", [
      `%${DOMAIN}%`,
    ]);
    expect(left.rows[0].n).toBe(0);
    const own = await initialize(undefined, `Bearer ${key}`);
    expect(own.status).toBe(200);
  });

  it("go with their deployment", async () => {
    const again = await alice.post(`/api/deployments/${dep.id}/domains`, { domain: DOMAIN });
    expect(again.status).toBe(201);
    expect((await alice.del(`/api/deployments/${dep.id}`)).status).toBeLessThan(300);
    const rows = await o.t.db.database.pool.query("select count(*)::int as n from custom_domains");
    expect(rows.rows[0].n).toBe(0);
    // Free to be added by anyone now.
    const bobs = await o.deploy(bob, "fixture2");
    expect((await bob.post(`/api/deployments/${bobs.id}/domains`, { domain: DOMAIN })).status).toBe(201);
  }, 90_000);
});
