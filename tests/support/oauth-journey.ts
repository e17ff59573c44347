// The whole life of an OAuth connection as the official MCP SDK client lives it, against one
// deployment: discovery from the 401, registration, authorization (approved by `approve`, which
// plays the browser), tools, a silent refresh, revocation by the owner, and 401 afterwards.
import { expect } from "vitest";
import { connectWithOAuth, recordingFetch, SDK_V1, type MemoryProvider, type SdkKit } from "./oauth-client.js";
import { mcpInitialize, token } from "./oauth.js";

export interface Journey {
  /** the deployment URL pasted into the client */
  url: string;
  /** PUBLIC_URL */
  base: string;
  provider: MemoryProvider;
  /** "dcr": the client registers (RFC 7591); "cimd": its client_id is its metadata document URL */
  registration: "dcr" | "cimd";
  /** opens the authorization URL as the person would and returns where the browser was sent back to */
  approve(authorizationUrl: URL): Promise<URL>;
  /** revokes the client's access to the deployment the way the owner does (Connected apps) */
  revoke(): Promise<void>;
  /** the client library (default: the SDK v1) */
  kit?: SdkKit;
}

const textOf = (r: unknown) => (r as { content: { type: string; text?: string }[] }).content.find((c) => c.type === "text")?.text ?? "";

export async function sdkJourney(j: Journey): Promise<void> {
  const issuer = `${j.base}/api/auth`;
  const prm = `${j.base}/.well-known/oauth-protected-resource/${new URL(j.url).pathname.split("/")[1]}/mcp`;
  const kit = j.kit ?? SDK_V1;
  const log = recordingFetch();
  const client = await connectWithOAuth(j.url, j.provider, j.approve, issuer, log, kit);

  // Discovery went 401 -> protected resource metadata -> authorization server metadata -> registration -> token.
  const seen = log.entries.map((e) => `${e.method} ${e.url} ${e.status}`);
  expect(log.entries[0], seen.join("\n")).toMatchObject({ method: "POST", url: j.url, status: 401 });
  expect(log.entries[0]!.wwwAuthenticate).toContain(`resource_metadata="${prm}"`);
  const step = (method: string, url: string) => log.entries.findIndex((e) => e.method === method && e.url === url && e.status < 300);
  const [iPrm, iAs, iToken] = [
    step("GET", prm),
    step("GET", `${j.base}/.well-known/oauth-authorization-server/api/auth`),
    step("POST", `${issuer}/oauth2/token`),
  ];
  expect(
    [iPrm, iAs, iToken].every((i) => i > 0),
    seen.join("\n"),
  ).toBe(true);
  expect(iPrm < iAs && iAs < iToken, seen.join("\n")).toBe(true);
  const iRegister = step("POST", `${issuer}/oauth2/register`);
  if (j.registration === "dcr") expect(iRegister > iAs && iRegister < iToken, seen.join("\n")).toBe(true);
  else {
    expect(iRegister, seen.join("\n")).toBe(-1);
    expect(j.provider.info?.client_id).toBe(j.provider.clientMetadataUrl);
  }
  const authz = j.provider.authorizationUrls[0]!;
  expect(authz.origin + authz.pathname).toBe(`${issuer}/oauth2/authorize`);
  expect(authz.searchParams.getAll("resource")).toEqual([j.url]);
  expect(authz.searchParams.get("code_challenge_method")).toBe("S256");

  // Used exactly as with an API key: tools, resources, prompts.
  expect((await client.listTools()).tools.map((t) => t.name)).toContain("echo");
  expect(textOf(await client.callTool({ name: "echo", arguments: { message: "hello over oauth" } }))).toContain("hello over oauth");
  expect((await client.readResource({ uri: "fixture://readme" })).contents[0]?.text).toBe("mcp-fixture readme");
  expect(JSON.stringify((await client.getPrompt({ name: "greet", arguments: { name: "Ada" } })).messages)).toContain("Ada");
  await client.close();

  // The access token is no longer accepted (expired, say): the client refreshes silently and carries on.
  const before = j.provider.stored!;
  j.provider.stored = { ...before, access_token: "an-expired-access-token" };
  const again = kit.client();
  await again.connect(kit.transport(j.url, j.provider, log) as never);
  expect(j.provider.stored.refresh_token).toBeTruthy();
  expect(j.provider.stored.refresh_token).not.toBe(before.refresh_token);
  expect(j.provider.authorizationUrls).toHaveLength(1); // nobody was asked again
  expect(textOf(await again.callTool({ name: "echo", arguments: { message: "after refresh" } }))).toContain("after refresh");

  // Revoked by the owner: the very next request is refused, the refresh token is dead, and the
  // client can only start over by sending the person to authorize again.
  const { access_token, refresh_token } = j.provider.stored;
  await j.revoke();
  await expect(again.callTool({ name: "echo", arguments: { message: "after revoke" } })).rejects.toThrow();
  const raw = await mcpInitialize(j.url, access_token);
  expect(raw.status).toBe(401);
  expect(raw.headers.get("www-authenticate")).toContain('error="invalid_token"');
  const r = await token(j.base, { grant_type: "refresh_token", refresh_token: refresh_token!, client_id: j.provider.info!.client_id });
  expect(r.status).toBe(400);
  expect(r.json()).toMatchObject({ error: "invalid_grant" });
  expect(j.provider.authorizationUrls.length).toBeGreaterThan(1);
  await again.close().catch(() => undefined);
}
