// Our catalogue rows as the registry's v0.1 ServerResponse, with packages derived from an
// entry's command where none are stored.
import type { RequiredKey } from "~/shared/catalog.js";
import { localCommand } from "~/shared/connect.js";
import type { ServerRow } from "../catalog/repo.js";
import { SERVER_SCHEMA_URL, type RegistryPackage } from "./format.js";

const OFFICIAL = "io.modelcontextprotocol.registry/official";

function repoSource(url: string): string {
  try {
    const host = new URL(url).hostname;
    if (host.endsWith("github.com")) return "github";
    if (host.endsWith("gitlab.com")) return "gitlab";
    return host;
  } catch {
    return "unknown";
  }
}

/** Packages for an entry that has none stored: derived from its npx or uvx command and required keys. */
function derivedPackages(r: ServerRow): RegistryPackage[] | undefined {
  const local = localCommand(r.npxCommand);
  const args = local?.args.filter((a) => a !== "-y" && a !== "--yes");
  if (!local || !args?.length || args[0]!.startsWith("-")) return undefined;
  const [spec, ...rest] = args as [string, ...string[]];
  const pypi = local.command === "uvx";
  const cut = pypi ? spec.search(/==|@/) : spec.lastIndexOf("@");
  const identifier = cut > 0 ? spec.slice(0, cut) : spec;
  const version = cut > 0 ? spec.slice(cut).replace(/^(==|@)/, "") : undefined;
  const keys = (r.requiredKeys as RequiredKey[] | null) ?? [];
  return [
    {
      registryType: pypi ? "pypi" : "npm",
      registryBaseUrl: pypi ? "https://pypi.org" : "https://registry.npmjs.org",
      identifier,
      ...(version && version !== "latest" ? { version } : {}),
      transport: { type: "stdio" },
      ...(rest.length ? { packageArguments: rest.map((value) => ({ type: "positional", value })) } : {}),
      ...(keys.length
        ? { environmentVariables: keys.map((k) => ({ name: k.env_var, description: k.description, isRequired: true, isSecret: true })) }
        : {}),
    },
  ];
}

const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1).trimEnd()}…`);

/** Our row as a v0.1 ServerResponse. */
export function toServerResponse(r: ServerRow) {
  const repo = r.repositoryUrl ? { url: r.repositoryUrl, source: repoSource(r.repositoryUrl) } : undefined;
  const packages = (r.packages as RegistryPackage[] | null) ?? derivedPackages(r);
  return {
    server: {
      $schema: SERVER_SCHEMA_URL,
      name: r.registryName!,
      title: clip(r.name, 100),
      description: clip(r.description.replace(/\s+/g, " ").trim(), 100),
      version: r.version ?? "1.0.0",
      ...(r.homepage ? { websiteUrl: r.homepage } : {}),
      ...(repo ? { repository: repo } : {}),
      ...(packages?.length ? { packages } : {}),
      ...(r.url ? { remotes: [{ type: "streamable-http", url: r.url }] } : {}),
    },
    _meta: {
      [OFFICIAL]: {
        // What its own registry said of it, or withdrawn here: a registry following this one learns it too.
        status: r.withdrawnAt ? "deleted" : r.upstreamStatus === "deprecated" ? "deprecated" : "active",
        publishedAt: r.createdAt.toISOString(),
        updatedAt: r.updatedAt.toISOString(),
        isLatest: true,
      },
    },
  };
}
