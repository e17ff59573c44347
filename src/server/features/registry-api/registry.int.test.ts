import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { headerOfKey } from "~/shared/connections.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "~support/app.js";
import { projectRoot } from "../../paths.js";
import { seedCatalogIfEmpty } from "../catalog/service.js";
import { NAME_RE } from "./format.js";
import { DEPLOY_TEXT } from "~/shared/deployments.js";
import { deployabilityOf } from "../deployments/deployability.js";
import { sourceFrom } from "../runtime/command.js";
import { entriesOf, importEntries } from "./importer.js";

const SNAPSHOT = path.resolve(projectRoot, "../shared/data/official-registry-seed-2025-05-16.json");
const hasSnapshot = existsSync(SNAPSHOT);

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ PUBLIC_URL: "https://mcp.example.com" });
  await seedCatalogIfEmpty(t.db.database.db, "com.example.mcp");
});
afterAll(() => t.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON answers, checked field by field
const get = async (url: string): Promise<{ status: number; body: any }> => {
  const r = await t.app.request(url);
  return { status: r.status, body: await r.json() };
};

async function all(limit = 100) {
  const names: string[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i++) {
    const { status, body } = await get(`/v0.1/servers?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    expect(status).toBe(200);
    expect(body.metadata.count).toBe(body.servers.length);
    names.push(...body.servers.map((s: { server: { name: string } }) => s.server.name));
    cursor = body.metadata.nextCursor;
    if (!cursor) break;
  }
  return names;
}

describe("GET /v0.1/servers (official registry API)", () => {
  it("lists every approved entry once, in server.json format, with a valid reverse-DNS name", async () => {
    const names = await all(7);
    expect(names.length).toBe(47);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(n).toMatch(NAME_RE);
    const { body } = await get("/v0.1/servers?limit=1&search=github");
    const entry = body.servers[0];
    expect(entry.server).toMatchObject({
      $schema: expect.stringContaining("server.schema.json"),
      name: "com.example.mcp/github",
      version: "1.0.0",
      repository: { source: "github" },
      packages: [
        {
          registryType: "npm",
          identifier: "@modelcontextprotocol/server-github",
          transport: { type: "stdio" },
          environmentVariables: [{ name: "GITHUB_PERSONAL_ACCESS_TOKEN", isRequired: true, isSecret: true }],
        },
      ],
    });
    expect(entry.server.description.length).toBeLessThanOrEqual(100);
    expect(entry._meta["io.modelcontextprotocol.registry/official"]).toMatchObject({ status: "active", isLatest: true });
  });

  it("filters by search, updated_since and version", async () => {
    expect((await get("/v0.1/servers?search=postgres")).body.servers.map((s: { server: { name: string } }) => s.server.name)).toContain(
      "com.example.mcp/postgres",
    );
    expect((await get(`/v0.1/servers?updated_since=${new Date(Date.now() + 60_000).toISOString()}`)).body.servers).toEqual([]);
    expect((await get("/v0.1/servers?version=latest&limit=100")).body.servers.length).toBe(47);
    expect((await get("/v0.1/servers?version=9.9.9")).body.servers).toEqual([]);
    expect((await get("/v0.1/servers?updated_since=yesterday")).status).toBe(400);
    expect((await get("/v0.1/servers?cursor=bm9wZQ")).status).toBe(400);
    expect((await get("/v0.1/servers?limit=1000")).status).toBe(400);
  });

  it("answers versions and a version by URL-encoded name", async () => {
    const name = encodeURIComponent("com.example.mcp/filesystem");
    const versions = await get(`/v0.1/servers/${name}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body.servers[0].server.name).toBe("com.example.mcp/filesystem");
    expect((await get(`/v0.1/servers/${name}/versions/latest`)).body.server.name).toBe("com.example.mcp/filesystem");
    expect((await get(`/v0.1/servers/${name}/versions/1.0.0`)).status).toBe(200);
    expect((await get(`/v0.1/servers/${name}/versions/2.0.0`)).status).toBe(404);
    expect((await get(`/v0.1/servers/${encodeURIComponent("com.example.mcp/nope")}/versions`)).status).toBe(404);
    expect((await get(`/v0.1/servers/${encodeURIComponent("bad%name")}/versions/latest`)).status).toBe(404);
  });
});

describe("catalog import", () => {
  const current = {
    $schema: "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
    name: "io.github.acme/weather",
    title: "Acme Weather",
    description: "Weather forecasts for any city",
    version: "2.1.0",
    repository: { url: "https://github.com/acme/weather", source: "github" },
    packages: [
      {
        registryType: "npm",
        identifier: "@acme/weather-mcp",
        version: "2.1.0",
        transport: { type: "stdio" },
        environmentVariables: [{ name: "WEATHER_KEY", description: "API key", isRequired: true, isSecret: true }],
      },
    ],
  };

  it("imports the current format, keeps the registry name, packages and keys, and changes nothing the second time", async () => {
    const first = await importEntries(t.db.database.db, entriesOf({ servers: [{ server: current }] }));
    expect(first.created).toEqual(["io.github.acme/weather"]);
    const { body } = await get(`/v0.1/servers/${encodeURIComponent("io.github.acme/weather")}/versions/latest`);
    expect(body.server).toMatchObject({ name: "io.github.acme/weather", version: "2.1.0", packages: current.packages });
    const row = (
      await t.db.database.pool.query(
        "select id, npx_command, required_keys, source, is_approved from mcp_servers where registry_name = $1",
        ["io.github.acme/weather"],
      )
    ).rows[0];
    expect(row).toMatchObject({ id: "acme-weather", npx_command: "npx -y @acme/weather-mcp@2.1.0", source: "imported", is_approved: true });
    expect(row.required_keys).toEqual([{ key: "WEATHER_KEY", env_var: "WEATHER_KEY", description: "API key" }]);

    const second = await importEntries(t.db.database.db, [current]);
    expect(second).toMatchObject({ created: [], updated: [], unchanged: ["io.github.acme/weather"] });
    const changed = await importEntries(t.db.database.db, [{ ...current, description: "Forecasts and alerts" }]);
    expect(changed.updated).toEqual(["io.github.acme/weather"]);
  });

  it("reports invalid entries by name and writes none of them", async () => {
    const before = (await t.db.database.pool.query("select count(*)::int as n from mcp_servers")).rows[0].n;
    const r = await importEntries(t.db.database.db, [
      { ...current, name: "no-slash-here" },
      { ...current, name: "io.github.acme/badversion", version: "" },
      { name: "io.github.acme/noversion", description: "x" },
      "not an object",
    ]);
    expect(r.invalid.map((i) => i.name)).toEqual(["no-slash-here", "io.github.acme/badversion", "io.github.acme/noversion", "(unnamed)"]);
    expect(r.invalid[0]!.reason).toContain("reverse-DNS");
    expect((await t.db.database.pool.query("select count(*)::int as n from mcp_servers")).rows[0].n).toBe(before);
  });

  it.skipIf(!hasSnapshot)(
    "imports the 471 entries of the 2025-05 registry snapshot and serves them through /v0.1 (needs ../shared/data)",
    async () => {
      const doc = JSON.parse(readFileSync(SNAPSHOT, "utf8")) as Array<{ name: string }>;
      expect(doc.length).toBe(471);
      // The snapshot holds a few blank records (no name, no version): those are reported and skipped.
      const blank = doc.filter((e) => !e.name).length;
      const named = new Set(doc.filter((e) => e.name).map((e) => e.name)).size;
      const r = await importEntries(t.db.database.db, entriesOf(doc));
      expect(r.invalid.length).toBe(blank);
      expect(r.invalid.every((i) => i.name === "(unnamed)")).toBe(true);
      expect(r.created.length).toBe(named);
      const again = await importEntries(t.db.database.db, entriesOf(doc));
      expect(again.created.length + again.updated.length).toBe(0);
      const names = await all(100);
      expect(names.length).toBe(47 + 1 + named);
      for (const n of names) expect(n).toMatch(NAME_RE);
      const magic = await get(`/v0.1/servers/${encodeURIComponent("io.github.21st-dev/magic-mcp")}/versions/latest`);
      expect(magic.body.server.packages[0]).toMatchObject({ registryType: "npm", identifier: "@21st-dev/magic", version: "0.0.46" });

      // PyPI packages become deployable uvx commands; container images say why they cannot be deployed.
      type Row = {
        registry_name: string;
        npx_command: string | null;
        repository_url: string | null;
        url: string | null;
        packages: Array<{ registryType: string; identifier: string }> | null;
      };
      const rows = (
        await t.db.database.pool.query(
          "select registry_name, npx_command, repository_url, url, packages from mcp_servers where source = 'imported'",
        )
      ).rows as Row[];
      const pypiOnly = rows.filter(
        (r) =>
          r.packages?.some((p) => p.registryType === "pypi" && /^[A-Za-z0-9][\w.-]*$/.test(p.identifier)) &&
          !r.packages.some((p) => p.registryType === "npm"),
      );
      expect(pypiOnly.length).toBeGreaterThan(40);
      for (const r of pypiOnly) {
        expect(r.npx_command, r.registry_name).toMatch(/^uvx /);
        expect(sourceFrom(r.npx_command, r.repository_url, { allowFileGit: false })).toMatchObject({ kind: "pypi" });
        expect(
          deployabilityOf(
            { npxCommand: r.npx_command, repositoryUrl: r.repository_url, url: r.url, packages: r.packages },
            { allowFileGit: false },
          ).kind,
        ).toBe("deployable");
      }
      const dockerOnly = rows.filter((r) => r.packages?.length && r.packages.every((p) => p.registryType === "oci") && !r.url);
      expect(dockerOnly.length).toBeGreaterThan(10);
      // The snapshot's docker command lines become `docker run -i` commands where they hold only
      // -i, --rm, -e NAME, the image and literal arguments; the rest say why they cannot run.
      let images = 0;
      for (const r of dockerOnly) {
        const d = deployabilityOf(
          { npxCommand: r.npx_command, repositoryUrl: r.repository_url, url: r.url, packages: r.packages },
          { allowFileGit: false },
        );
        if (r.npx_command) {
          expect(r.npx_command).toMatch(/^docker run (-i|-p \d+) /);
          expect(d).toEqual({ kind: "deployable", runtime: "image" });
          images++;
        } else expect(d).toEqual({ kind: "unsupported", reason: DEPLOY_TEXT.dockerOnly(r.packages![0]!.identifier) });
      }
      expect(images).toBeGreaterThan(5);
      expect(images).toBeLessThan(dockerOnly.length);
    },
  );

  it("imports a PyPI package as a uvx command and a stdio image as docker run, with their required keys and literal arguments (placeholders are left to the user)", async () => {
    const py = {
      name: "io.github.acme/clock",
      description: "Tells the time",
      version: "1.4.0",
      packages: [
        {
          registryType: "pypi",
          identifier: "acme-clock-mcp",
          version: "1.4.0",
          transport: { type: "stdio" },
          runtimeArguments: [{ type: "named", name: "--python", value: "3.12" }],
          packageArguments: [
            { type: "named", name: "--timezone", value: "UTC" },
            { type: "positional", value: "stdio" },
          ],
          environmentVariables: [
            { name: "CLOCK_KEY", description: "API key", isRequired: true, isSecret: true },
            { name: "PATH", description: "not a key", isRequired: true },
          ],
        },
      ],
    };
    const placeholder = {
      ...py,
      name: "io.github.acme/clock-two",
      packages: [
        {
          ...py.packages[0]!,
          identifier: "acme-clock-two",
          packageArguments: [{ type: "named", name: "--db", value: "<path to your db>" }],
        },
      ],
    };
    const docker = {
      ...py,
      name: "io.github.acme/boxed",
      packages: [{ registryType: "oci", identifier: "docker.io/acme/boxed:1.0", transport: { type: "stdio" } }],
    };
    const keyed = {
      ...py,
      name: "io.github.acme/boxed-keys",
      packages: [
        {
          registryType: "oci",
          identifier: "ghcr.io/acme/boxed",
          version: "2.0.1",
          transport: { type: "stdio" },
          environmentVariables: [{ name: "BOX_TOKEN", description: "Token", isRequired: true, isSecret: true }],
          packageArguments: [{ type: "positional", value: "serve" }],
        },
      ],
    };
    const overHttp = {
      ...py,
      name: "io.github.acme/boxed-http",
      packages: [
        { registryType: "oci", identifier: "ghcr.io/acme/web:1", transport: { type: "streamable-http", url: "http://localhost:8080/mcp" } },
      ],
    };
    // Served elsewhere than /mcp, or at a templated port: not a command this grammar can say.
    const elsewhere = {
      ...py,
      name: "io.github.acme/boxed-elsewhere",
      packages: [
        {
          registryType: "oci",
          identifier: "ghcr.io/acme/web:2",
          transport: { type: "streamable-http", url: "http://localhost:{port}/api" },
        },
      ],
    };
    const r = await importEntries(t.db.database.db, [py, placeholder, docker, keyed, overHttp, elsewhere]);
    expect(r.created).toEqual([
      "io.github.acme/clock",
      "io.github.acme/clock-two",
      "io.github.acme/boxed",
      "io.github.acme/boxed-keys",
      "io.github.acme/boxed-http",
      "io.github.acme/boxed-elsewhere",
    ]);
    const row = async (name: string) =>
      (await t.db.database.pool.query("select npx_command, required_keys, packages from mcp_servers where registry_name = $1", [name]))
        .rows[0];
    const clock = await row("io.github.acme/clock");
    expect(clock.npx_command).toBe("uvx acme-clock-mcp==1.4.0 --timezone UTC stdio");
    expect(clock.required_keys).toEqual([{ key: "CLOCK_KEY", env_var: "CLOCK_KEY", description: "API key" }]);
    expect(clock.packages[0].runtimeArguments).toEqual(py.packages[0]!.runtimeArguments);
    expect((await row("io.github.acme/clock-two")).npx_command).toBe("uvx acme-clock-two==1.4.0");
    // Images: the reference (its version as the tag), the keys' names, literal arguments; -p for one that speaks HTTP at /mcp.
    expect((await row("io.github.acme/boxed")).npx_command).toBe("docker run -i --rm docker.io/acme/boxed:1.0");
    const keyedRow = await row("io.github.acme/boxed-keys");
    expect(keyedRow.npx_command).toBe("docker run -i --rm -e BOX_TOKEN ghcr.io/acme/boxed:2.0.1 serve");
    expect(keyedRow.required_keys).toEqual([{ key: "BOX_TOKEN", env_var: "BOX_TOKEN", description: "Token" }]);
    expect((await row("io.github.acme/boxed-http")).npx_command).toBe("docker run -p 8080 --rm ghcr.io/acme/web:1");
    expect((await row("io.github.acme/boxed-elsewhere")).npx_command).toBe(null);

    // A server its publisher hosts: the headers its remote declares are its keys (a connection sends them back as headers).
    const hosted = {
      name: "io.github.acme/hosted",
      description: "Hosted",
      version: "1.0.0",
      remotes: [
        {
          type: "streamable-http",
          url: "https://mcp.acme.example/mcp",
          headers: [
            { name: "X-API-Key", description: "Your Acme key", isRequired: true, isSecret: true },
            { name: "X-Region", description: "Optional region" },
            { name: "Bad.Name", isRequired: true },
          ],
        },
      ],
    };
    expect((await importEntries(t.db.database.db, [hosted])).created).toEqual(["io.github.acme/hosted"]);
    expect((await row("io.github.acme/hosted")).required_keys).toEqual([
      { key: "X-API-Key", env_var: "X_API_Key", description: "Your Acme key" },
    ]);
    expect(headerOfKey("X_API_Key")).toBe("X-API-Key");
  });
});
