// Organisations in integration tests: a colleague invited by e-mail and joining from the link, and
// waiting for a listed row (a connection, a toolset) to run.
import { expect } from "vitest";
import { linkIn, outbox, type Client, type TestApp } from "./app.js";
import { waitFor } from "./wait.js";

/** `owner` invites `email` to `slug` as a member; `who` (that address, signed in) accepts from the e-mailed link. */
export async function joinOrg(t: TestApp, owner: Client, slug: string, email: string, who: Client): Promise<void> {
  expect((await owner.post(`/api/orgs/${slug}/invitations`, { email, role: "member" })).status).toBe(201);
  const mail = (await outbox(t.app)).find((m) => m.to === email);
  const id = decodeURIComponent(new URL(linkIn(mail)).pathname.split("/")[2]!);
  expect((await who.post(`/api/invitations/${id}/accept`, {})).status).toBe(200);
}

/** The row `id` of the list at `path` once it runs (30 s at most); the last one seen is in the error otherwise. */
export async function listedRunning<T extends { id: string; status: string }>(c: Client, path: string, id: string): Promise<T> {
  let last: T | undefined;
  try {
    return await waitFor(
      `${path} ${id} running`,
      async () => {
        last = ((await (await c.get(path)).json()) as T[]).find((x) => x.id === id);
        return last?.status === "running" ? last : undefined;
      },
      30_000,
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}: last ${JSON.stringify(last)}`);
  }
}
