// The set-up the OAuth provider's integration tests share (oauth-*.int.test.ts): one test app with
// alice's and bob's deployments and a public client, and the small helpers the tests use on it.
import { createHash } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import { createTestApp, signedInUser, type Client, type TestApp } from "~support/app.js";
import { addDeployment, pkce, publicClient } from "./oauth-test-support.js";

// Live bindings: a test file reads them after useOAuthFixture's beforeAll has set them.
export let t: TestApp;
export let alice: Client & { id: string };
export let bob: Client & { id: string };
export let depA: { id: string; url: string };
export let depB: { id: string; url: string };
export let clientId: string;
export const q = (s: string, p: unknown[] = []) => t.db.database.pool.query(s, p);
export const db = () => t.db.database.db;
export const sha = (s: string) => createHash("sha256").update(s).digest("base64url");
export const S256 = () => {
  const p = pkce();
  return { code_challenge: p.challenge, code_challenge_method: "S256" };
};

/** Sets the test app up before the file's tests and closes it after them. */
export function useOAuthFixture() {
  beforeAll(async () => {
    t = await createTestApp();
    alice = await signedInUser(t, "alice@example.com");
    bob = await signedInUser(t, "bob@example.com");
    depA = await addDeployment(t, alice.id, "server-a");
    depB = await addDeployment(t, bob.id, "server-b");
    clientId = await publicClient(t);
  });
  afterAll(() => t.close());
}
