// Helpers for the authorization server's integration tests (driving the app through app.request).
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Client, TestApp } from "~support/app.js";
import { sql } from "drizzle-orm";
import { insertDeploymentResource } from "./repo.js";
import { resourceUrl } from "./resource.js";

export const REDIRECT = "http://127.0.0.1:33418/callback";

export function pkce() {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/** A deployment row of `userId` (not started) with its OAuth resource; returns its URL. */
export async function addDeployment(t: TestApp, userId: string, ref: string): Promise<{ id: string; url: string; proxyId: string }> {
  const proxyId = randomBytes(16).toString("hex");
  const url = resourceUrl(t.config.PUBLIC_URL, proxyId);
  const id = randomUUID();
  const db = t.db.database.db;
  await db.execute(sql`insert into deployments (id, user_id, server_kind, server_ref, source, secrets, proxy_id, status)
    values (${id}, ${userId}, 'catalog', ${ref}, '{"kind":"npm","package":"x","args":[]}'::jsonb, 'x', ${proxyId}, 'running')`);
  await insertDeploymentResource(db, id, url);
  return { id, url, proxyId };
}

export async function register(t: TestApp, body: Record<string, unknown>) {
  const r = await t.app.request("/api/auth/oauth2/register", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

export async function publicClient(t: TestApp, redirect = REDIRECT): Promise<string> {
  const r = await register(t, {
    client_name: "Test MCP client",
    redirect_uris: [redirect],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  });
  if (r.status !== 201) throw new Error(`register: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.client_id as string;
}

export function authorizeUrl(clientId: string, resources: string[], extra: Record<string, string> = {}) {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    scope: "mcp offline_access",
    state: "st-" + randomBytes(4).toString("hex"),
    ...extra,
  });
  for (const r of resources) q.append("resource", r);
  return `/api/auth/oauth2/authorize?${q}`;
}

/** Follows the authorize redirect; returns where it led. */
export async function authorize(c: Client, clientId: string, resources: string[], extra: Record<string, string> = {}) {
  const r = await c.get(authorizeUrl(clientId, resources, extra));
  return { status: r.status, location: r.headers.get("location") ?? "", body: r.status >= 400 ? await r.text() : "" };
}

export async function consent(c: Client, consentLocation: string, accept = true, headers?: Record<string, string>) {
  const r = await c.post(
    "/api/auth/oauth2/consent",
    { accept, oauth_query: new URL(consentLocation, "http://x").search.slice(1) },
    headers,
  );
  const body = (await r.json().catch(() => ({}))) as { url?: string; error?: string };
  return { status: r.status, url: body.url ?? r.headers.get("location") ?? "", body };
}

/** Authorize, approve and return the code with its verifier. */
export async function codeFor(c: Client, clientId: string, resource: string) {
  const p = pkce();
  const a = await authorize(c, clientId, [resource], { code_challenge: p.challenge, code_challenge_method: "S256" });
  let url = a.location;
  if (new URL(url, "http://x").pathname === "/oauth/consent") url = (await consent(c, url)).url;
  const code = new URL(url).searchParams.get("code");
  if (!code) throw new Error(`no code: ${url} ${a.status} ${a.body}`);
  return { code, verifier: p.verifier, url };
}

export async function token(t: TestApp, form: Record<string, string>) {
  const r = await t.app.request("/api/auth/oauth2/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  return { status: r.status, body: (await r.json()) as Record<string, string> };
}

export async function tokensFor(t: TestApp, c: Client, clientId: string, resource: string) {
  const { code, verifier } = await codeFor(c, clientId, resource);
  const r = await token(t, {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
    resource,
  });
  if (r.status !== 200) throw new Error(`token: ${r.status} ${JSON.stringify(r.body)}`);
  return { access: r.body.access_token!, refresh: r.body.refresh_token!, code, verifier };
}
