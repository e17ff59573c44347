import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, signedInUser, type TestApp } from "~support/app.js";
import { CONNECTION_TEXT } from "~/shared/connections.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { COMMAND_TEXT } from "../runtime/command.js";
import { CATEGORIES } from "~/shared/catalog.js";
import { insertServers } from "./repo.js";
import { seedCatalogIfEmpty } from "./service.js";
import { SEED_SERVERS } from "./seed-data.js";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
  await seedCatalogIfEmpty(t.db.database.db);
  await insertServers(t.db.database.db, [
    {
      id: "pending-one",
      name: "Pending One",
      description: "Waiting for review",
      category: "Featured",
      type: "Community",
      source: "user_submitted",
      tags: ["secret"],
      isApproved: false,
    },
    {
      id: "xss-demo",
      name: "XSS Demo",
      description:
        'Hello <script>alert(1)</script> <img src=x onerror="alert(2)"> [js](javascript:alert(3)) [data](data:text/html;base64,PHNjcmlwdD4=) [ok](https://example.com)',
      category: "Featured",
      type: "Community",
      source: "user_submitted",
      tags: ["demo"],
      isApproved: true,
    },
  ]);
});
afterAll(() => t.close());

const get = async (url: string) => {
  const r = await t.app.request(url);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers are checked field by field below
  return { status: r.status, body: (await r.json()) as any };
};

describe("the demo catalogue", () => {
  it("has at least 40 approved servers across all 8 categories", async () => {
    expect(SEED_SERVERS.length).toBeGreaterThanOrEqual(40);
    const cats = new Set(SEED_SERVERS.map((s) => s.category));
    for (const c of CATEGORIES) expect(cats.has(c)).toBe(true);
    const { body } = await get("/api/mcp-servers?pageSize=100");
    expect(body.pagination.total).toBe(SEED_SERVERS.length + 1);
    expect(body.data.find((s: { id: string }) => s.id === "everything").npx_command).toBe("npx -y @modelcontextprotocol/server-everything");
    expect(body.data.find((s: { id: string }) => s.id === "github").required_keys[0].env_var).toBe("GITHUB_PERSONAL_ACCESS_TOKEN");
  });

  it("is added only once", async () => {
    expect(await seedCatalogIfEmpty(t.db.database.db)).toBe(0);
  });
});

describe("GET /api/mcp-servers", () => {
  it("answers {data, pagination} in the catalogue shape", async () => {
    const { status, body } = await get("/api/mcp-servers?pageSize=5&page=2");
    expect(status).toBe(200);
    expect(body.pagination).toEqual({
      page: 2,
      pageSize: 5,
      total: SEED_SERVERS.length + 1,
      totalPages: Math.ceil((SEED_SERVERS.length + 1) / 5),
    });
    expect(body.data).toHaveLength(5);
    expect(Object.keys(body.data[0]).sort()).toEqual(
      [
        "category",
        "description",
        "documentation",
        "homepage",
        "id",
        "name",
        "npx_command",
        "repository_url",
        "required_keys",
        "tags",
        "type",
        "useCount",
      ].sort(),
    );
  });

  it.each([
    ["postgre", "postgres"],
    ["githb", "github"],
    ["GitHub", "github"],
    ["playwrite", "playwright"],
    ["knowledge graph", "memory"],
  ])("finds %s -> %s (prefixes and typos)", async (q, id) => {
    const { body } = await get(`/api/mcp-servers?q=${encodeURIComponent(q)}`);
    expect(body.data.map((s: { id: string }) => s.id).slice(0, 3)).toContain(id);
  });

  it("finds nothing for nonsense and survives query syntax", async () => {
    expect((await get("/api/mcp-servers?q=zzqxvv")).body.pagination.total).toBe(0);
    for (const q of ["a & b | !c", "'\"\\", "):*", "%_"])
      expect((await get(`/api/mcp-servers?q=${encodeURIComponent(q)}`)).status).toBe(200);
  });

  it("filters by category and type, and sorts A-Z and newest", async () => {
    const cat = (await get("/api/mcp-servers?category=Communication&pageSize=100")).body;
    expect(cat.data.length).toBeGreaterThan(0);
    expect(cat.data.every((s: { category: string }) => s.category === "Communication")).toBe(true);
    const ref = (await get("/api/mcp-servers?type=Reference&pageSize=100")).body;
    expect(ref.data.every((s: { type: string }) => s.type === "Reference")).toBe(true);
    const az = (await get("/api/mcp-servers?sort=name&pageSize=100")).body.data.map((s: { name: string }) => s.name.toLowerCase());
    expect(az).toEqual([...az].sort());
    const newest = (await get("/api/mcp-servers?sort=newest&pageSize=2")).body.data.map((s: { id: string }) => s.id);
    expect(newest).toEqual(["xss-demo", "everything"]);
  });

  it("sorts and filters a text search like browsing does, and counts its matches", async () => {
    const ids = (body: { data: { id: string }[] }) => body.data.map((s) => s.id);
    const all = (await get("/api/mcp-servers?pageSize=100&sort=newest")).body;
    const matching = (await get("/api/mcp-servers?q=and&pageSize=100")).body;
    expect(matching.pagination.total).toBe(matching.data.length);
    expect(matching.data.length).toBeGreaterThan(3);
    const matched = new Set(ids(matching));
    // Newest and A-Z over the matches: the same order as browsing everything, restricted to them.
    const newest = (await get("/api/mcp-servers?q=and&sort=newest&pageSize=100")).body;
    expect(ids(newest)).toEqual(ids(all).filter((id: string) => matched.has(id)));
    const az = (await get("/api/mcp-servers?q=and&sort=name&pageSize=100")).body.data.map((s: { name: string }) => s.name.toLowerCase());
    expect(az).toEqual([...az].sort());
    const page2 = (await get("/api/mcp-servers?q=and&sort=newest&pageSize=2&page=2")).body;
    expect(ids(page2)).toEqual(ids(newest).slice(2, 4));
    const dev = (await get("/api/mcp-servers?q=and&category=Development%20Tools&type=Reference&pageSize=100")).body;
    expect(dev.data.length).toBeGreaterThan(0);
    expect(dev.data.every((s: { category: string; type: string }) => s.category === "Development Tools" && s.type === "Reference")).toBe(
      true,
    );
    expect(dev.pagination.total).toBe(dev.data.length);
  });

  it("ranks a name match above entries that only mention the word", async () => {
    const { body } = await get("/api/mcp-servers?q=memory");
    expect(body.data[0].id).toBe("memory");
  });

  it("refuses bad parameters with 400", async () => {
    expect((await get("/api/mcp-servers?pageSize=101")).status).toBe(400);
    expect((await get("/api/mcp-servers?category=Nope")).status).toBe(400);
    expect((await get("/api/mcp-servers?page=0")).status).toBe(400);
  });

  it("never lists pending entries", async () => {
    const { body } = await get("/api/mcp-servers?q=pending&pageSize=100");
    expect(body.data.map((s: { id: string }) => s.id)).not.toContain("pending-one");
  });
});

describe("GET /api/mcp-servers/{id} and /related", () => {
  it("answers one entry without the stripped fields", async () => {
    const { status, body } = await get("/api/mcp-servers/github");
    expect(status).toBe(200);
    for (const k of ["is_approved", "source", "url", "submitted_by", "created_at", "updated_at"]) expect(body).not.toHaveProperty(k);
    expect(body.name).toBe("GitHub");
  });

  it("answers 404 for unknown and pending entries", async () => {
    expect((await get("/api/mcp-servers/nope")).status).toBe(404);
    expect((await get("/api/mcp-servers/pending-one")).status).toBe(404);
    expect((await get("/api/mcp-servers/pending-one/related")).status).toBe(404);
  });

  it("relates up to 6 servers, same category first", async () => {
    const { body } = await get("/api/mcp-servers/github/related");
    expect(body.data.length).toBeLessThanOrEqual(6);
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data[0].category).toBe("Development Tools");
    expect(body.data.map((s: { id: string }) => s.id)).not.toContain("github");
  });
});

describe("pages", () => {
  it("renders the directory as HTML that works without JavaScript", async () => {
    const html = await (await t.app.request("/?q=githb")).text();
    expect(html).toContain("GitHub");
    const form = /<form[^>]*role="search"[^>]*>/.exec(html)?.[0] ?? "";
    expect(form).toContain('method="get"');
    expect(form).toContain('action="/"');
    expect(html).toContain('href="/server/github"');
  });

  it("shows an empty state", async () => {
    const html = await (await t.app.request("/servers?q=zzqxvv")).text();
    expect(html).toContain("No servers match your search.");
  });

  it("renders a server page with its sections, connect configurations and meta tags", async () => {
    const r = await t.app.request("/server/github");
    expect(r.status).toBe(200);
    const html = await r.text();
    expect(html).toContain("<title>GitHub MCP server - Switchboard</title>");
    expect(html).toMatch(/<meta name="description" content="Repository management/);
    for (const s of [
      "Server Information",
      "Deployment",
      "Related Servers",
      "Connect",
      "Claude Desktop",
      "Claude Code",
      "Cursor",
      "VS Code",
    ])
      expect(html).toContain(s);
    expect(html).toContain("claude mcp add github");
    expect(html).toContain("GITHUB_PERSONAL_ACCESS_TOKEN");
  });

  it("answers an unknown server with 'Server not found', 'Back to Servers' and 404", async () => {
    const r = await t.app.request("/server/nope");
    expect(r.status).toBe(404);
    const html = await r.text();
    expect(html).toContain("Server not found");
    expect(html).toMatch(/href="\/servers"[^>]*>.*Back to Servers/s);
    expect((await t.app.request("/server/pending-one")).status).toBe(404);
  });

  it("renders user markdown inert", async () => {
    const html = await (await t.app.request("/server/xss-demo")).text();
    const main = html.slice(html.indexOf("<main"), html.indexOf("</main>"));
    expect(main).not.toMatch(/<script>alert/);
    expect(main).not.toMatch(/onerror=/);
    expect(main).not.toContain('href="javascript:');
    expect(main).not.toContain('href="data:');
    expect(main).toMatch(/<a href="https:\/\/example.com" rel="noopener nofollow ugc"/);
  });

  it("says why an entry cannot be deployed here (a container image, a publisher-hosted server, a command outside the grammar) instead of offering Deploy; a uvx entry connects through uvx", async () => {
    const add = (id: string, cols: { npx?: string | null; repo?: string | null; url?: string | null; packages?: unknown }) =>
      t.db.database.pool.query(
        "insert into mcp_servers (id, name, description, category, type, source, tags, npx_command, repository_url, url, packages, is_approved) values ($1, $1, 'x', 'Development Tools', 'Community', 'imported', '{}', $2, $3, $4, $5::jsonb, true)",
        [id, cols.npx ?? null, cols.repo ?? null, cols.url ?? null, cols.packages === undefined ? null : JSON.stringify(cols.packages)],
      );
    await add("boxed", {
      repo: "https://github.com/acme/boxed",
      packages: [
        {
          registryType: "oci",
          identifier: "docker.io/acme/boxed:1.0",
          transport: { type: "streamable-http", url: "http://localhost:8080/mcp" },
        },
      ],
    });
    await add("hosted-remote", { url: "https://mcp.acme.example/sse" });
    await add("odd-command", { npx: "node server.js" });
    await add("py-clock", { npx: "uvx acme-clock==1.0" });
    const page = async (id: string) => {
      const html = await (await t.app.request(`/server/${id}`)).text();
      return html.slice(html.indexOf("<main"), html.indexOf("</main>"));
    };
    const boxed = await page("boxed");
    expect(boxed).toContain(DEPLOY_TEXT.dockerOnly("docker.io/acme/boxed:1.0").replace(/'/g, "&#x27;").replace(/"/g, "&quot;"));
    expect(boxed).not.toMatch(/<button[^>]*type="submit"[^>]*>[^<]*Deploy/);
    const remote = await page("hosted-remote");
    // Hosted by its publisher: connected through Switchboard, not deployed.
    expect(remote).toContain(CONNECTION_TEXT.connectHint);
    expect(remote).toMatch(/<button[^>]*type="submit"[^>]*>[^<]*Connect/);
    expect(remote).not.toMatch(/<button[^>]*type="submit"[^>]*>[^<]*Deploy/);
    expect(remote).toContain('data-testid="remote-url"');
    expect(remote).toContain("claude mcp add --transport sse hosted-remote https://mcp.acme.example/sse");
    expect(await page("odd-command")).toContain(
      `This server&#x27;s command cannot run here: ${COMMAND_TEXT.unknown.replace(/"/g, "&quot;")}`,
    );
    const py = await page("py-clock");
    expect(py).toContain("Run it locally through <!-- -->uvx<!-- --> from your client");
    expect(py).toContain("claude mcp add py-clock -- uvx acme-clock==1.0");
    expect(py).toMatch(/<button[^>]*type="submit"[^>]*>[^<]*Deploy/);

    const c = await signedInUser(t, "deployer@example.com");
    for (const [id, message] of [
      ["boxed", DEPLOY_TEXT.dockerOnly("docker.io/acme/boxed:1.0")],
      ["hosted-remote", DEPLOY_TEXT.remoteOnly],
    ] as const) {
      const r = await c.post(`/api/deploy/${id}`, { env: {} });
      expect(r.status).toBe(400);
      expect(((await r.json()) as { error: string }).error).toBe(message);
    }
  });
});
