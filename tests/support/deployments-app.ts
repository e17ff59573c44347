import { expect } from "vitest";
import type { DeploymentView } from "../../src/shared/deployments.js";
import { createTestApp, signedInUser, type Client, type TestApp } from "./app.js";
import { EVERYTHING, addCatalogEntry, registerOwnedServer } from "./deployments.js";
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
export const toolText = (r: unknown) => ((r as { content: { text: string }[] }).content[0]?.text ?? "");

/** Registers the owned server `<username>/<name>` to deploy the fixture repository to. */
export const registerFixture = (c: Client, username: string, name = "fixture") => registerOwnedServer(c, `${username}/${name}`);

export async function startDeploymentsApp(): Promise<DeploymentsApp> {
  const t = await createTestApp({ GIT_ALLOW_FILE: "on", RESTART_BACKOFF_MS: "200", CRASH_LOOP_AFTER: "3", DEPLOY_START_TIMEOUT_MS: "20000" });
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
