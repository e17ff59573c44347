import { expect } from "vitest";
import type { DeploymentView } from "~/shared/deployments.js";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "./app.js";
import { EVERYTHING, addCatalogEntry, registerOwnedServer, waitForStatus } from "./deployments.js";
import { newApiKey } from "./gateway.js";
import { createFixtureRepo, type FixtureRepo } from "./git-fixture.js";

/** The app the deployment tests of one file share, with what most of them deploy. */
export interface DeploymentsApp {
  /** Git deploys from file URLs allowed, quick restarts (200 ms back-off, crash-looping after 3). */
  t: TestApp;
  /** The fixture MCP server (tests/fixtures) as a git repository. */
  repo: FixtureRepo;
  /** owner@example.com, who owns the server "owner/fixture". The catalogue holds "everything". */
  owner: Client & { id: string };
  /** Deploys the fixture repository to the owned server `qn` (expects 202) and returns the deployment. */
  deployFixture(c: Client, qn: string, env?: Record<string, string>): Promise<DeploymentView>;
  close(): Promise<void>;
}

/** The text of a tool call's first content block. */
export const toolText = (r: unknown) => (r as { content: { text: string }[] }).content[0]?.text ?? "";

/** Registers the owned server `<username>/<name>` to deploy the fixture repository to. */
export const registerFixture = (c: Client, username: string, name = "fixture") => registerOwnedServer(c, `${username}/${name}`);

/** `env`: settings of this app beyond the ones every deployments test uses. */
export async function startDeploymentsApp(env: Record<string, string> = {}): Promise<DeploymentsApp> {
  const t = await createTestApp({
    GIT_ALLOW_FILE: "on",
    RESTART_BACKOFF_MS: "200",
    CRASH_LOOP_AFTER: "3",
    DEPLOY_START_TIMEOUT_MS: "20000",
    ...env,
  });
  let repo: FixtureRepo | undefined;
  try {
    repo = await createFixtureRepo();
    const owner = await signedInUser(t, "owner@example.com");
    await registerFixture(owner, "owner");
    await addCatalogEntry(t, "everything", `npx -y ${EVERYTHING}`);
    const fixture = repo;
    return {
      t,
      repo: fixture,
      owner,
      deployFixture: async (c, qn, env = {}) => {
        const r = await c.post(`/api/deploy/${qn}`, { repositoryUrl: fixture.url, env });
        expect(r.status, await r.clone().text()).toBe(202);
        return ((await r.json()) as { deploymentInfo: DeploymentView }).deploymentInfo;
      },
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

/** What the gateway's integration tests start from (see startRunningFixture). */
export interface RunningFixture {
  t: TestApp;
  /** where the app listens, which is also its PUBLIC_URL */
  base: string;
  repo: FixtureRepo;
  /** owner@example.com, signed in */
  owner: Client & { id: string };
  /** one of the owner's API keys */
  key: string;
  /** the fixture server, running as owner/fixture */
  deployment: DeploymentView;
  close(): Promise<void>;
}

/**
 * An app listening on a port of its own (its PUBLIC_URL), git deploys from file URLs allowed,
 * owner@example.com signed in with an API key, and the fixture repository deployed to
 * owner/fixture and running (with the keys `deployEnv`). `env` adds to or overrides the settings.
 */
export async function startRunningFixture(
  env: Record<string, string> = {},
  deployEnv: Record<string, string> = {},
): Promise<RunningFixture> {
  const port = await freePort();
  const t = await createTestApp({ GIT_ALLOW_FILE: "on", PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env });
  let repo: FixtureRepo | undefined;
  try {
    const base = await t.listen();
    repo = await createFixtureRepo();
    const owner = await signedInUser(t, "owner@example.com");
    const key = await newApiKey(owner, "fixture");
    await registerOwnedServer(owner, "owner/fixture", "fixture");
    const r = await owner.post("/api/deploy/owner/fixture", { repositoryUrl: repo.url, env: deployEnv });
    expect(r.status, await r.clone().text()).toBe(202);
    const deployment = await waitForStatus(owner, "owner/fixture", "running", 60_000);
    const fixture = repo;
    return {
      t,
      base,
      repo: fixture,
      owner,
      key,
      deployment,
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
