import { randomBytes, randomUUID } from "node:crypto";
import type http from "node:http";
import type net from "node:net";
import express from "express";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { InvalidGrantError, InvalidTokenError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import type { AuthorizationParams, OAuthServerProvider } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import { createOAuthMetadata, getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from "@modelcontextprotocol/sdk/server/auth/router.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { z } from "zod";

// A remote MCP server behind its own OAuth authorization server, as a publisher would host one:
// the MCP SDK's authorization-server router (metadata, dynamic registration, token, revocation)
// with this test's provider, which shows a consent page a browser (or a test acting as one) fills
// in with the name of the person signing in; and the SDK's streamable HTTP server behind bearer
// authentication, whose `whoami` tool says whose grant a call came with. Tokens live
// `accessTtlSec`; refresh tokens rotate; `revokeAll` is the upstream's admin ending every grant.

export interface OAuthUpstream {
  /** the MCP endpoint */
  url: string;
  /** seconds an access token lives (change it between sign-ins) */
  accessTtlSec: number;
  /** the upstream's admin ends every grant: refresh and access tokens all stop working */
  revokeAll(): void;
  /** tokens its revocation endpoint was asked to revoke */
  revoked: string[];
  refreshes: number;
  registrations: number;
  /** every Authorization header an MCP request came with */
  bearers: string[];
  /** the resource indicators codes were asked for */
  resources: string[];
  close(): Promise<void>;
}

type Grant = { clientId: string; user: string; resource?: string };

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** `cimd`: its authorization server says it takes client ID metadata documents (URL client IDs). */
export async function startOAuthUpstream(host = "127.0.0.1", opts: { cimd?: boolean } = {}): Promise<OAuthUpstream> {
  const clients = new Map<string, OAuthClientInformationFull>();
  const asked = new Map<string, { client: OAuthClientInformationFull; params: AuthorizationParams }>();
  const codes = new Map<string, Grant & { challenge: string; redirectUri: string }>();
  const access = new Map<string, Grant & { expiresAt: number }>();
  const refresh = new Map<string, Grant>();
  const u: OAuthUpstream = {
    url: "",
    accessTtlSec: 3600,
    revokeAll() {
      access.clear();
      refresh.clear();
    },
    revoked: [],
    refreshes: 0,
    registrations: 0,
    bearers: [],
    resources: [],
    close: async () => undefined,
  };

  const issue = (g: Grant): OAuthTokens => {
    const accessToken = `at-${randomBytes(16).toString("hex")}`;
    const refreshToken = `rt-${randomBytes(16).toString("hex")}`;
    access.set(accessToken, { ...g, expiresAt: Date.now() + u.accessTtlSec * 1000 });
    refresh.set(refreshToken, g);
    return { access_token: accessToken, refresh_token: refreshToken, token_type: "Bearer", expires_in: u.accessTtlSec };
  };

  const provider: OAuthServerProvider = {
    clientsStore: {
      getClient: (id) => clients.get(id),
      registerClient: (c) => {
        u.registrations++;
        const full = { ...c, client_id: `client-${randomUUID()}`, client_id_issued_at: Math.floor(Date.now() / 1000) };
        clients.set(full.client_id, full);
        return full;
      },
    },
    async authorize(client, params, res) {
      const id = randomUUID();
      asked.set(id, { client, params });
      res.type("html").send(
        page(
          "Sign in to Upstream",
          `<p>${esc(client.client_name ?? client.client_id)} asks to use your tools.</p>
<form method="post" action="/consent">
<input type="hidden" name="request" value="${id}">
<label>Your name <input name="user" value="alice"></label>
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
        ),
      );
    },
    async challengeForAuthorizationCode(_client, code) {
      const c = codes.get(code);
      if (!c) throw new InvalidGrantError("unknown code");
      return c.challenge;
    },
    async exchangeAuthorizationCode(client, code, _verifier, redirectUri) {
      const c = codes.get(code);
      codes.delete(code);
      if (!c || c.clientId !== client.client_id || (redirectUri && redirectUri !== c.redirectUri)) throw new InvalidGrantError("bad code");
      return issue({ clientId: c.clientId, user: c.user, resource: c.resource });
    },
    async exchangeRefreshToken(client, token) {
      const g = refresh.get(token);
      if (!g || g.clientId !== client.client_id) throw new InvalidGrantError("refresh token is not valid");
      refresh.delete(token);
      u.refreshes++;
      return issue(g);
    },
    async verifyAccessToken(token) {
      const g = access.get(token);
      if (!g) throw new InvalidTokenError("unknown token");
      return { token, clientId: g.clientId, scopes: [], expiresAt: Math.floor(g.expiresAt / 1000), extra: { user: g.user } };
    },
    async revokeToken(_client, request) {
      u.revoked.push(request.token);
      access.delete(request.token);
      refresh.delete(request.token);
    },
  };

  const app = express();
  const server: http.Server = await new Promise((resolve) => {
    const s = app.listen(0, host, () => resolve(s));
  });
  const port = (server.address() as net.AddressInfo).port;
  const base = `http://${host}:${port}`;
  u.url = `${base}/mcp`;
  const noLimit = { rateLimit: false as const };
  if (opts.cimd)
    app.get("/.well-known/oauth-authorization-server", (_req, res) =>
      res.json({ ...createOAuthMetadata({ provider, issuerUrl: new URL(base) }), client_id_metadata_document_supported: true }),
    );
  app.use(
    mcpAuthRouter({
      provider,
      issuerUrl: new URL(base),
      resourceServerUrl: new URL(u.url),
      resourceName: "Upstream",
      authorizationOptions: noLimit,
      clientRegistrationOptions: noLimit,
      revocationOptions: noLimit,
      tokenOptions: noLimit,
    }),
  );
  app.post("/consent", express.urlencoded({ extended: false }), (req, res) => {
    const a = asked.get(String(req.body.request));
    asked.delete(String(req.body.request));
    if (!a) return void res.status(400).send(page("Expired", "<p>This request has expired.</p>"));
    const back = new URL(a.params.redirectUri);
    if (a.params.state) back.searchParams.set("state", a.params.state);
    if (req.body.decision !== "allow") back.searchParams.set("error", "access_denied");
    else {
      const code = randomBytes(16).toString("hex");
      if (a.params.resource) u.resources.push(a.params.resource.href);
      codes.set(code, {
        clientId: a.client.client_id,
        user: String(req.body.user || "alice"),
        resource: a.params.resource?.href,
        challenge: a.params.codeChallenge,
        redirectUri: a.params.redirectUri,
      });
      back.searchParams.set("code", code);
    }
    res.redirect(302, back.href);
  });

  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(u.url)) });
  app.all(
    "/mcp",
    (req, _res, next) => {
      u.bearers.push(req.headers.authorization ?? "");
      next();
    },
    bearer,
    express.json(),
    async (req, res) => {
      const sid = req.headers["mcp-session-id"];
      let transport = typeof sid === "string" ? sessions.get(sid) : undefined;
      if (!transport) {
        if (sid) return void res.status(404).json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
        if (req.method !== "POST") return void res.status(400).end();
        const t = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, t),
        });
        t.onclose = () => {
          if (t.sessionId) sessions.delete(t.sessionId);
        };
        const mcp = new McpServer({ name: "upstream", version: "1.0.0" });
        mcp.registerTool("whoami", { description: "Says whose sign-in the call came with", inputSchema: {} }, async (_args, extra) => ({
          content: [{ type: "text", text: `signed in as ${String(extra.authInfo?.extra?.user)}` }],
        }));
        mcp.registerTool("echo", { description: "Echoes its input", inputSchema: { message: z.string() } }, async ({ message }) => ({
          content: [{ type: "text", text: message }],
        }));
        await mcp.connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res, req.body);
    },
  );

  u.close = async () => {
    for (const t of sessions.values()) await t.close().catch(() => undefined);
    await new Promise<void>((r) => {
      server.close(() => r());
      server.closeAllConnections();
    });
  };
  return u;
}
