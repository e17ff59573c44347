import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type Client, type TestApp } from "~support/app.js";
import { verifyAccessToken } from "./index.js";
import { addDeployment, authorize, authorizeUrl, codeFor, pkce, REDIRECT, token } from "./oauth-test-support.js";

// Client ID Metadata Documents: the client_id is an https URL whose document the authorization
// server fetches. Tests serve documents on 127.0.0.1 under `.test` host names, which the test-only
// OAUTH_CIMD_ALLOW_HTTP_LOOPBACK setting maps to plain http on loopback.

let t: TestApp;
let owner: Client & { id: string };
let dep: { url: string };
let docs: http.Server;
let base: string;
const fetched: string[] = [];

beforeAll(async () => {
  docs = http.createServer((req, res) => {
    fetched.push(req.url ?? "");
    const id = `${base}${req.url}`;
    const doc = {
      client_id: id,
      client_name: "Doc Client",
      client_uri: base,
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    };
    if (req.url === "/client.json") return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(doc));
    if (req.url === "/big.json")
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...doc, padding: "x".repeat(200_000) }));
    if (req.url === "/moved.json") return res.writeHead(302, { location: `${base}/client.json` }).end();
    if (req.url === "/wrong-id.json")
      return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ ...doc, client_id: `${base}/other.json` }));
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => docs.listen(0, "127.0.0.1", resolve));
  base = `https://cimd.test:${(docs.address() as AddressInfo).port}`;
  t = await createTestApp({ OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: "on" });
  owner = await signedInUser(t, "owner@example.com");
  dep = await addDeployment(t, owner.id, "server-a");
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => docs.close(resolve));
});

const S256 = () => ({ code_challenge: pkce().challenge, code_challenge_method: "S256" });

describe("client metadata documents", () => {
  it("registers a client from its document and runs the whole flow", async () => {
    const clientId = `${base}/client.json`;
    const { code, verifier } = await codeFor(owner, clientId, dep.url);
    const r = await token(t, {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: verifier,
      resource: dep.url,
    });
    expect(r.status).toBe(200);
    expect(await verifyAccessToken(t.db.database.db, r.body.access_token!)).toMatchObject({ clientId, resource: dep.url });
    const row = await t.db.database.pool.query(`select name, client_discovery_id from oauth_client where client_id = $1`, [clientId]);
    expect(row.rows).toEqual([{ name: "Doc Client", client_discovery_id: "cimd" }]);
  });

  it("caches a fetched document", async () => {
    const before = fetched.filter((u) => u === "/client.json").length;
    expect(before).toBeGreaterThan(0);
    await authorize(owner, `${base}/client.json`, [dep.url], S256());
    await authorize(owner, `${base}/client.json`, [dep.url], S256());
    expect(fetched.filter((u) => u === "/client.json").length).toBe(before);
  });

  it("keeps redirect URIs to what the document lists", async () => {
    const r = await owner.get(
      authorizeUrl(`${base}/client.json`, [dep.url], { ...S256(), redirect_uri: "http://127.0.0.1:33418/elsewhere" }),
    );
    expect(r.headers.get("location")).toMatch(/\/oauth\/error\?error=invalid_redirect/);
  });

  it.each([
    ["a private address", () => "https://127.0.0.1/client.json", /private or reserved/],
    ["a host that resolves to loopback", () => "https://localhost.example.invalid/client.json", /not permitted/],
    ["a document over the size limit", () => `${base}/big.json`, /exceeds 5KB/],
    ["a redirect", () => `${base}/moved.json`, /HTTP 302|redirect/],
    ["a document naming another client_id", () => `${base}/wrong-id.json`, /does not match/],
    ["a missing document", () => `${base}/missing.json`, /HTTP 404/],
  ])("refuses %s with a clear error and no redirect", async (_n, id, why) => {
    const r = await authorize(owner, id(), [dep.url], S256());
    expect(r.status).toBe(400);
    expect(r.location).toBe("");
    const body = JSON.parse(r.body) as { error: string; error_description: string };
    expect(body.error).toBe("invalid_client");
    expect(body.error_description).toMatch(why);
  });
});
