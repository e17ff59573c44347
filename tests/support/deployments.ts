import { sql } from "drizzle-orm";
import type { DeploymentView } from "~/shared/deployments.js";
import type { Client, TestApp } from "./app.js";
import { waitFor } from "./wait.js";

export { removeDataDir } from "./data-dir.js";

export const EVERYTHING = "@modelcontextprotocol/server-everything";

/** Adds an approved catalogue entry (what an admin-approved submission looks like). */
export async function addCatalogEntry(
  t: TestApp,
  id: string,
  npx: string | null,
  requiredKeys: { key: string; env_var: string; description: string }[] | null = null,
) {
  await t.db.database.db.execute(sql`
    insert into mcp_servers (id, name, description, category, type, source, tags, npx_command, required_keys, is_approved)
    values (${id}, ${id}, ${"Test server " + id}, 'Development Tools', 'Reference', 'official', array['test'], ${npx}, ${requiredKeys === null ? null : JSON.stringify(requiredKeys)}::jsonb, true)`);
}

export async function deploymentsOf(c: Client, serverId: string): Promise<DeploymentView[]> {
  const r = await c.get(`/api/deployments/server/${serverId}`);
  return ((await r.json()) as { deployments: DeploymentView[] }).deployments;
}

/** Polls like the page does (faster) until the deployment reaches one of `want`. */
export async function waitForStatus(c: Client, serverId: string, want: string | string[], timeoutMs = 120_000): Promise<DeploymentView> {
  const wanted = Array.isArray(want) ? want : [want];
  let last: DeploymentView | undefined;
  try {
    return await waitFor(
      `deployment of ${serverId}`,
      async () => {
        [last] = await deploymentsOf(c, serverId);
        return last && wanted.includes(last.status) ? last : undefined;
      },
      timeoutMs,
    );
  } catch {
    throw new Error(`deployment of ${serverId} did not reach ${wanted.join("/")}: last ${JSON.stringify(last)}`);
  }
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Registers an owned server (its connection details do not matter for deploying from git). */
export async function registerOwnedServer(c: Client, qualifiedName: string, displayName = "Fixture"): Promise<void> {
  const r = await c.post("/api/servers", {
    qualifiedName,
    displayName,
    description: "A small MCP server from a git repository",
    repositoryUrl: "https://example.com/fixture/repo",
    keywords: "test",
    connections: [{ type: "http", url: "https://example.com/mcp", configSchema: {} }],
  });
  if (r.status !== 201) throw new Error(`register ${qualifiedName}: ${r.status} ${await r.text()}`);
}
