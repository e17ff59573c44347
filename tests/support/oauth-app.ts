// An app listening on a real port with deployments of the fixture MCP server, owned by people
// signed in over HTTP: what the OAuth tests authorize clients for.
import type { DeploymentView } from "~/shared/deployments.js";
import { createTestApp, freePort, type TestApp } from "./app.js";
import { createFixtureRepo, type FixtureRepo } from "./git-fixture.js";
import { signUpOverHttp, type HttpUser } from "./oauth.js";
import { waitFor } from "./wait.js";

export interface OAuthApp {
  t: TestApp;
  /** PUBLIC_URL, e.g. http://127.0.0.1:{port} */
  base: string;
  /** the authorization server's issuer */
  issuer: string;
  repo: FixtureRepo;
  user(email: string): Promise<HttpUser>;
  /** subscribes `user` to Pro through the test-mode checkout (more than one running deployment) */
  pro(user: HttpUser): Promise<void>;
  /** registers `<username>/<name>` for `owner` and deploys the fixture to it; resolves once it runs */
  deploy(owner: HttpUser, name: string): Promise<DeploymentView>;
  close(): Promise<void>;
}

/** Registers `<username>/<name>` for `owner`, deploys the fixture repository to it and waits until it runs. */
export async function deployFixture(owner: HttpUser, name: string, repositoryUrl: string): Promise<DeploymentView> {
  const qn = `${owner.email.split("@")[0]}/${name}`;
  const reg = await owner.post("/api/servers", {
    qualifiedName: qn,
    displayName: name,
    description: "A small MCP server from a git repository",
    repositoryUrl: "https://example.com/fixture/repo",
    keywords: "test",
    connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
  });
  if (reg.status !== 201) throw new Error(`register ${qn}: ${reg.status} ${reg.text}`);
  const d = await owner.post(`/api/deploy/${qn}`, { repositoryUrl, env: {} });
  if (d.status !== 202) throw new Error(`deploy ${qn}: ${d.status} ${d.text}`);
  let last: DeploymentView | undefined;
  const running = async () => {
    [last] = (await owner.get(`/api/deployments/server/${qn}`)).json<{ deployments: DeploymentView[] }>().deployments;
    return last?.status === "running" ? last : undefined;
  };
  return waitFor(`${qn} running`, running, 60_000, 150).catch(() => {
    throw new Error(`${qn} did not start: ${JSON.stringify(last)}`);
  });
}

export async function startOAuthApp(env: Record<string, string> = {}): Promise<OAuthApp> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t = await createTestApp({ PORT: String(port), PUBLIC_URL: base, GIT_ALLOW_FILE: "on", DEPLOY_START_TIMEOUT_MS: "20000", ...env });
  let repo: FixtureRepo | undefined;
  try {
    await t.listen();
    repo = await createFixtureRepo();
    const fixture = repo;
    return {
      t,
      base,
      issuer: `${base}/api/auth`,
      repo: fixture,
      user: (email) => signUpOverHttp(base, email),
      pro: async (user) => {
        const checkout = await user.post("/api/subscriptions/checkout", { plan: "pro", period: "monthly" });
        const id = checkout.json<{ url: string }>().url.split("/").pop();
        const confirmed = await user.post(`/api/subscriptions/test-checkout/${id}/confirm`);
        if (confirmed.status !== 200) throw new Error(`checkout: ${confirmed.status} ${confirmed.text}`);
      },
      deploy: (owner, name) => deployFixture(owner, name, fixture.url),
      close: async () => {
        await t.close();
        await fixture.cleanup();
      },
    };
  } catch (err) {
    await t.close();
    await repo?.cleanup();
    throw err;
  }
}
