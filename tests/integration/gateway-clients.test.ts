import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, freePort, signedInUser, type Client, type TestApp } from "../support/app.js";
import { GATEWAY_TEXT } from "~/server/features/gateway/gateway.js";
import { addCatalogEntry, EVERYTHING, waitForStatus } from "../support/deployments.js";
import { newApiKey, sdkClient, textOf } from "../support/gateway.js";
import { ensureInspector, INSPECTOR_VERSION, runInspector, type InspectorTools } from "../support/inspector.js";

// Real MCP clients - the official TypeScript SDK and the official MCP Inspector's CLI - against the
// reference "everything" server deployed from the catalogue, reached only through the gateway URL
// its panel shows and the owner's API key, as a user would paste them into a client.

let t: TestApp;
let key: string;
let user: Client;
let deploymentId: string;
let url: string;
let inspector: InspectorTools;

type Tools = { tools: { name: string }[] };

beforeAll(async () => {
  // Installing the inspector (and the Node 22 it needs) overlaps with the deployment's npx install.
  const installing = ensureInspector();
  installing.catch(() => undefined); // awaited below; keeps an early failure from being "unhandled" meanwhile
  const port = await freePort();
  t = await createTestApp({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  await t.listen();
  await addCatalogEntry(t, "everything", `npx -y ${EVERYTHING}`);
  user = await signedInUser(t, "clients@example.com");
  key = await newApiKey(user, "clients");
  const r = await user.post("/api/deploy/everything", { env: {} });
  expect(r.status, await r.clone().text()).toBe(202);
  const running = await waitForStatus(user, "everything", "running", 180_000);
  url = running.url;
  deploymentId = running.id;
  expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/[^/]+/mcp$`));
  inspector = await installing;
}, 600_000);

afterAll(async () => {
  await t?.close();
});

describe("official SDK client through the gateway", () => {
  it("lists the tools and calls echo over Streamable HTTP", { timeout: 60_000 }, async () => {
    const client = await sdkClient(url, key);
    try {
      expect(client.getServerVersion()?.name).toMatch(/everything/i);
      expect((await client.listTools()).tools.map((x) => x.name)).toContain("echo");
      expect(textOf(await client.callTool({ name: "echo", arguments: { message: "hello from the sdk" } }))).toContain("hello from the sdk");
    } finally {
      await client.close();
    }
  });

  it(
    "a first deploy raises no false alarm: tools listed only to clients that can sample, elicit or give roots were pinned with the rest",
    { timeout: 60_000 },
    async () => {
      const client = await sdkClient(url, key);
      try {
        const names = (await client.listTools()).tools.map((x) => x.name);
        expect(names).toEqual(expect.arrayContaining(["echo", "trigger-sampling-request"]));
      } finally {
        await client.close();
      }
      const review = (await (await user.get(`/api/deployments/${deploymentId}/definitions`)).json()) as { changes: unknown[] };
      expect(review.changes).toEqual([]);
    },
  );

  it("lists the tools and calls echo over legacy HTTP+SSE", { timeout: 60_000 }, async () => {
    const client = await sdkClient(url.replace(/\/mcp$/, "/sse"), key, { legacy: true });
    try {
      expect((await client.listTools()).tools.map((x) => x.name)).toContain("echo");
      expect(textOf(await client.callTool({ name: "echo", arguments: { message: "hello over sse" } }))).toContain("hello over sse");
    } finally {
      await client.close();
    }
  });
});

describe(`MCP Inspector CLI ${INSPECTOR_VERSION} through the gateway`, () => {
  for (const transport of ["http", "sse"] as const) {
    it(`lists the tools and calls echo with --transport ${transport} and an Authorization header`, { timeout: 180_000 }, async () => {
      const target = transport === "http" ? url : url.replace(/\/mcp$/, "/sse");
      const listed = await runInspector<Tools>(inspector, { url: target, key, transport, args: ["--method", "tools/list"] });
      expect(listed.tools.map((x) => x.name)).toContain("echo");
      const called = await runInspector(inspector, {
        url: target,
        key,
        transport,
        args: ["--method", "tools/call", "--tool-name", "echo", "--tool-arg", `message=hello from the inspector over ${transport}`],
      });
      expect(textOf(called)).toContain(`hello from the inspector over ${transport}`);
    });
  }

  it("is refused with a key that is not the owner's, and says why", { timeout: 180_000 }, async () => {
    // The inspector reports the gateway's JSON-RPC error text as an auth_required error.
    await expect(runInspector(inspector, { url, key: "sk_not_a_real_key", args: ["--method", "tools/list"] })).rejects.toThrow(
      GATEWAY_TEXT.invalidKey,
    );
  });
});
