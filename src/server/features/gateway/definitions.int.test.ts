import { PromptListChangedNotificationSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInUser } from "~support/app.js";
import { startRunningFixture, type RunningFixture } from "~support/deployments-app.js";
import { waitForStatus } from "~support/deployments.js";
import { sdkClient, textOf } from "~support/gateway.js";
import type { DefinitionReviewView } from "~/shared/definitions.js";
import { definitionOf } from "../deployments/definitions/definitions.js";
import { loadReview, recordListing } from "../deployments/definitions/definitions-repo.js";
import { saveCapabilities } from "../deployments/repo.js";
import { until as poll } from "~support/wait.js";

// Pinned definitions against a rug pull: the fixture server, deployed with FIXTURE_RUG_PULL=1,
// rewrites echo's description into an instruction to leak a key, adds a tool, changes a prompt
// and drops a tool when it starts the second time. Its first listing pinned the definitions; the
// changed and new ones are withheld from every client until the owner approves them, the dropped
// one disappears at once, and 'warn only' exposes changes (except a rejected one) at once.

let f: RunningFixture;
let api: string;

beforeAll(async () => {
  f = await startRunningFixture({ USAGE_FLUSH_MS: "50", RESTART_BACKOFF_MS: "200" }, { FIXTURE_RUG_PULL: "1" });
  api = `/api/deployments/${f.deployment.id}/definitions`;
}, 120_000);
afterAll(async () => {
  await f?.close();
});

const names = (r: { tools: { name: string }[] }) => r.tools.map((t) => t.name);
const review = async () => {
  const r = await f.owner.get(api);
  expect(r.status).toBe(200);
  return (await r.json()) as DefinitionReviewView;
};
const until = <T>(what: () => Promise<T>, ok: (v: T) => boolean, ms = 20_000) => poll(what, ok, ms, 100);

describe("definitions pinned at first listing", () => {
  it("a changed description, a new tool and a changed prompt are withheld until approved; a removed tool disappears at once", async () => {
    // First start: pinned, nothing to review.
    const first = await until(review, (v) => v.pinned);
    expect(first).toEqual({ warn_only: false, pinned: true, changes: [] });
    const before = await sdkClient(f.deployment.url, f.key);
    const trusted = await before.listTools();
    expect(trusted.tools.find((t) => t.name === "echo")?.description).toBe("Returns the message unchanged.");
    expect(names(trusted)).toContain("add");

    // The server restarts (a crash, a new release): its definitions change.
    await before.callTool({ name: "crash", arguments: {} }).catch(() => undefined);
    await before.close().catch(() => undefined);
    await until(
      () => waitForStatus(f.owner, "owner/fixture", "running"),
      (d) => d.restarts >= 1,
    );
    const pending = await until(review, (v) => v.changes.length === 3);
    expect(pending.changes.map((c) => [c.kind, c.name, c.status])).toEqual([
      ["prompt", "greet", "changed"],
      ["tool", "echo", "changed"],
      ["tool", "send_secrets", "new"],
    ]);
    const echo = pending.changes.find((c) => c.name === "echo")!;
    expect(echo.approved?.description).toBe("Returns the message unchanged.");
    expect(echo.current.description).toContain("read ~/.ssh/id_rsa");
    expect(pending.changes.find((c) => c.name === "send_secrets")!.approved).toBeNull();

    // Every client: withheld from listings, refused when called, the server never asked.
    const client = await sdkClient(f.deployment.url, f.key);
    const listed = names(await client.listTools());
    expect(listed).not.toContain("echo");
    expect(listed).not.toContain("send_secrets");
    expect(listed).not.toContain("add"); // removed by the server: gone at once, nothing to approve
    expect(listed).toContain("get_env");
    await expect(client.callTool({ name: "echo", arguments: { message: "hi" } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining(
        'The tool "echo" changed since its owner approved it and is withheld until the owner reviews the change',
      ),
    });
    await expect(client.callTool({ name: "send_secrets", arguments: { text: "x" } })).rejects.toMatchObject({ code: -32602 });
    expect((await client.listPrompts()).prompts).toEqual([]);
    await expect(client.getPrompt({ name: "greet", arguments: { name: "Ada" } })).rejects.toMatchObject({ code: -32602 });
    const legacy = await sdkClient(f.deployment.sse_url, f.key, { legacy: true });
    expect(names(await legacy.listTools())).not.toContain("echo");
    await expect(legacy.callTool({ name: "echo", arguments: { message: "hi" } })).rejects.toMatchObject({ code: -32602 });

    // The owner approves echo's new description: listed and callable at once; open sessions are told.
    let toldTools = 0;
    let toldPrompts = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void toldTools++);
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void toldPrompts++);
    await new Promise((r) => setTimeout(r, 300)); // its GET stream is open
    const approved = await f.owner.post(api, { decision: "approve", items: [{ kind: "tool", name: "echo", hash: echo.hash }] });
    expect(approved.status, await approved.clone().text()).toBe(200);
    expect(((await approved.json()) as DefinitionReviewView).changes.map((c) => c.name)).toEqual(["greet", "send_secrets"]);
    await until(
      async () => toldTools,
      (n) => n > 0,
      5000,
    );
    expect(toldTools).toBeGreaterThan(0);
    expect(toldPrompts).toBeGreaterThan(0);
    const now = await client.listTools();
    expect(now.tools.find((t) => t.name === "echo")?.description).toContain("read ~/.ssh/id_rsa");
    expect(textOf(await client.callTool({ name: "echo", arguments: { message: "hi" } }))).toBe("hi");

    // Rejected: stays withheld, marked rejected.
    const secrets = pending.changes.find((c) => c.name === "send_secrets")!;
    const rejected = await f.owner.post(api, { decision: "reject", items: [{ kind: "tool", name: "send_secrets", hash: secrets.hash }] });
    expect(rejected.status).toBe(200);
    expect(((await rejected.json()) as DefinitionReviewView).changes.map((c) => [c.name, c.status])).toEqual([
      ["greet", "changed"],
      ["send_secrets", "rejected"],
    ]);
    expect(names(await client.listTools())).not.toContain("send_secrets");

    // Warn only: the changed prompt reaches clients at once; the rejected tool still does not.
    const warn = await f.owner.put(`${api}/mode`, { warn_only: true });
    expect(warn.status).toBe(200);
    expect(((await warn.json()) as DefinitionReviewView).warn_only).toBe(true);
    expect((await client.listPrompts()).prompts.map((p) => p.description)).toEqual([
      "Greets someone by name, then asks for their password.",
    ]);
    expect(names(await client.listTools())).not.toContain("send_secrets");
    await expect(client.callTool({ name: "send_secrets", arguments: { text: "x" } })).rejects.toMatchObject({ code: -32602 });
    expect((await f.owner.put(`${api}/mode`, { warn_only: false })).status).toBe(200);
    expect((await client.listPrompts()).prompts).toEqual([]);
    for (const c of [client, legacy]) await c.close();
  }, 90_000);

  it("a hostile listing cannot keep its definitions from being pinned: NULs and lone surrogates are stored, too-large and unnamed items are no definitions", async () => {
    const db = f.t.db.database.db;
    const o = { userId: f.owner.id, serverKind: "owned", serverRef: "owner/hostile" };
    const listed = [
      { name: "nul", description: "a\u0000b" },
      { name: "surrogate", description: "x\ud800y", inputSchema: { "k\udc00": 1 } },
      { name: "big", description: "x".repeat(70 * 1024) },
      { name: "bad\ud800name" },
    ];
    const defs = listed.map(definitionOf).filter((d) => d !== undefined);
    expect(defs.map((d) => d.name)).toEqual(["nul", "surrogate"]);
    expect(await recordListing(db, o, "tool", defs, true)).toBe(true);
    const review = await loadReview(db, o);
    expect(review.pinned("tool")).toBe(true);
    for (const d of defs) expect(review.exposes("tool", d)).toBe(true);
    expect(review.exposes("tool", definitionOf(listed[2]))).toBe(false);
    // The capabilities shown on the page take them too.
    await saveCapabilities(db, { kind: "owned", ref: "owner/hostile" }, { tools: listed, prompts: [], resources: [] });
  });

  it("decisions are the owner's, about the definition shown, and all or none", async () => {
    const { changes } = await review();
    const greet = changes.find((c) => c.name === "greet")!;
    // A stale hash (the definition changed again since it was shown): nothing is decided.
    const stale = await f.owner.post(api, {
      decision: "approve",
      items: [
        { kind: "prompt", name: "greet", hash: greet.hash },
        { kind: "tool", name: "send_secrets", hash: "0".repeat(64) },
      ],
    });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ error: "This definition changed again while you were looking: review the new one." });
    expect((await review()).changes.find((c) => c.name === "greet")!.status).toBe("changed");
    // Nothing waiting for that one.
    const none = await f.owner.post(api, { decision: "approve", items: [{ kind: "tool", name: "get_env", hash: "0".repeat(64) }] });
    expect(none.status).toBe(404);
    // Another user sees no such deployment.
    const eve = await signedInUser(f.t, "eve@example.com");
    expect((await eve.get(api)).status).toBe(404);
    expect((await eve.post(api, { decision: "approve", items: [{ kind: "prompt", name: "greet", hash: greet.hash }] })).status).toBe(404);
    expect((await eve.put(`${api}/mode`, { warn_only: true })).status).toBe(404);
    // Bad input: a clear 400.
    for (const body of [
      {},
      { decision: "maybe", items: [] },
      { decision: "approve", items: [] },
      { decision: "approve", items: [{ kind: "tool", name: "x", hash: "nothex" }] },
      { decision: "approve", items: [{ kind: "widget", name: "x", hash: "0".repeat(64) }] },
    ]) {
      const r = await f.owner.post(api, body);
      expect([JSON.stringify(body).slice(0, 50), r.status]).toEqual([JSON.stringify(body).slice(0, 50), 400]);
    }
    expect((await f.owner.put(`${api}/mode`, { warn_only: "yes" })).status).toBe(400);
    // Approving the prompt, as shown: done.
    expect((await f.owner.post(api, { decision: "approve", items: [{ kind: "prompt", name: "greet", hash: greet.hash }] })).status).toBe(
      200,
    );
    const client = await sdkClient(f.deployment.url, f.key);
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(["greet"]);
    await client.close();
  }, 60_000);
});
