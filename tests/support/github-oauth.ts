// A local OAuth2 server standing in for GitHub (authorize, token exchange with PKCE, /user, /user/emails).
import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeGitHubUser {
  id: number;
  login: string;
  name: string;
  email: string;
  verified: boolean;
}

export interface FakeGitHub {
  url: string;
  clientId: string;
  clientSecret: string;
  /** who approves the next authorization */
  user: FakeGitHubUser;
  /** what the token endpoint saw, for assertions */
  tokenRequests: Array<Record<string, string>>;
  authorizeRequests: Array<Record<string, string>>;
  close(): Promise<void>;
}

export async function startFakeGitHub(): Promise<FakeGitHub> {
  const codes = new Map<string, { challenge?: string; method?: string; redirectUri: string; user: FakeGitHubUser }>();
  const tokens = new Map<string, FakeGitHubUser>();
  const state: FakeGitHub = {
    url: "",
    clientId: "test-client",
    clientSecret: "test-secret",
    user: { id: 1001, login: "octocat", name: "The Octocat", email: "octocat@example.com", verified: true },
    tokenRequests: [],
    authorizeRequests: [],
    close: async () => {},
  };
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === "/login/oauth/authorize") {
      const q = Object.fromEntries(url.searchParams);
      state.authorizeRequests.push(q);
      if (q.client_id !== state.clientId || !q.redirect_uri || !q.state) return send(400, { error: "bad_request" });
      const code = randomBytes(12).toString("hex");
      codes.set(code, {
        challenge: q.code_challenge,
        method: q.code_challenge_method,
        redirectUri: q.redirect_uri,
        user: { ...state.user },
      });
      const back = new URL(q.redirect_uri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", q.state);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === "/login/oauth/access_token" && req.method === "POST") {
      let raw = "";
      for await (const chunk of req) raw += chunk;
      const form: Record<string, string> = req.headers["content-type"]?.includes("json")
        ? JSON.parse(raw)
        : Object.fromEntries(new URLSearchParams(raw));
      const basic = req.headers.authorization?.startsWith("Basic ")
        ? Buffer.from(req.headers.authorization.slice(6), "base64").toString().split(":")
        : [];
      const clientId = form.client_id ?? decodeURIComponent(basic[0] ?? "");
      const secret = form.client_secret ?? decodeURIComponent(basic[1] ?? "");
      state.tokenRequests.push(form);
      const entry = codes.get(form.code ?? "");
      if (!entry || clientId !== state.clientId || secret !== state.clientSecret) return send(400, { error: "bad_verification_code" });
      codes.delete(form.code!);
      if (entry.challenge) {
        const computed = createHash("sha256")
          .update(form.code_verifier ?? "")
          .digest("base64url");
        if (computed !== entry.challenge) return send(400, { error: "invalid_grant" });
      }
      const token = randomBytes(16).toString("hex");
      tokens.set(token, entry.user);
      return send(200, { access_token: token, token_type: "bearer", scope: "read:user,user:email" });
    }
    const user = tokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
    if (url.pathname === "/user")
      return user ? send(200, { id: user.id, login: user.login, name: user.name, avatar_url: "https://example.com/a.png" }) : send(401, {});
    if (url.pathname === "/user/emails")
      return user ? send(200, [{ email: user.email, primary: true, verified: user.verified }]) : send(401, {});
    send(404, { error: "not found" });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((r) => server.close(() => r()));
  return state;
}
