import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect } from "vitest";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "~support/app.js";
import { registerOwnedServer, waitForStatus } from "~support/deployments.js";
import { newApiKey } from "~support/gateway.js";
import { createFixtureRepo, type FixtureRepo } from "~support/git-fixture.js";
import type { DeploymentView } from "~/shared/deployments.js";

// The gateway integration tests' set-up (gateway*.int.test.ts): the gateway over real HTTP on a
// real port, in front of a real deployed stdio server (the zero-dependency fixture in
// tests/fixtures/mcp-fixture, deployed from a git repository), its owner and the owner's key.

export interface GatewayFixture {
  t: TestApp;
  repo: FixtureRepo;
  base: string;
  owner: Client & { id: string };
  key: string;
  deployment: DeploymentView;
  url: string;
}

async function deployFixture(c: Client, repo: FixtureRepo, username: string, name: string): Promise<DeploymentView> {
  await registerOwnedServer(c, `${username}/${name}`, name);
  const r = await c.post(`/api/deploy/${username}/${name}`, { repositoryUrl: repo.url, env: {} });
  expect(r.status, await r.clone().text()).toBe(202);
  return waitForStatus(c, `${username}/${name}`, "running", 60_000);
}

/** A server's 'Total Usage' as the database has it. */
export const usageOf = async (t: TestApp, qn: string) =>
  (await t.db.database.db.execute<{ use_count: number }>(sql`select use_count from servers where qualified_name = ${qn}`)).rows[0]!
    .use_count;

/** The app, the deployed fixture, its owner and key, given to `ready` before the file's tests; all of it goes after them. */
export function useGatewayApp(ready: (f: GatewayFixture) => void): void {
  let t: TestApp | undefined;
  let repo: FixtureRepo | undefined;
  beforeAll(async () => {
    const port = await freePort();
    t = await createTestApp({
      GIT_ALLOW_FILE: "on",
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      RESTART_BACKOFF_MS: "200",
      USAGE_FLUSH_MS: "50",
      GATEWAY_SESSION_IDLE_MS: "1500",
      GATEWAY_MAX_SESSIONS: "25",
      GATEWAY_REQUEST_TIMEOUT_MS: "1000",
      // One key makes thousands of requests here in a minute: fair use has tests of its own (fair-use.test.ts).
      GATEWAY_RATE_FREE: "0",
    });
    const base = await t.listen();
    repo = await createFixtureRepo();
    const owner = await signedInUser(t, "owner@example.com");
    const key = await newApiKey(owner, "editor");
    const deployment = await deployFixture(owner, repo, "owner", "fixture");
    ready({ t, repo, base, owner, key, deployment, url: deployment.url });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await repo?.cleanup();
  });
}
