// The official MCP Registry's server.json format (v0.1 API), to and from our catalogue rows.
import { z } from "zod";
import { CATEGORIES, type RequiredKey } from "../../../shared/catalog.js";
import { localCommand } from "../../../shared/connect.js";
import { settableEnv } from "../../../shared/deployments.js";
import type { NewServerRow, ServerRow } from "../catalog/repo.js";

export const SERVER_SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
export const NAME_RE = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const OFFICIAL = "io.modelcontextprotocol.registry/official";

const envVar = z.object({
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  default: z.string().optional(),
});
const argument = z
  .object({ type: z.string().optional(), name: z.string().optional(), value: z.string().optional(), valueHint: z.string().optional() })
  .passthrough();
export const packageSchema = z
  .object({
    registryType: z.string().min(1),
    registryBaseUrl: z.string().optional(),
    identifier: z.string().min(1).max(500),
    version: z.string().max(255).optional(),
    runtimeHint: z.string().optional(),
    transport: z.object({ type: z.string() }).passthrough().default({ type: "stdio" }),
    packageArguments: z.array(argument).optional(),
    runtimeArguments: z.array(argument).optional(),
    environmentVariables: z.array(envVar).optional(),
  })
  .passthrough();
export type RegistryPackage = z.infer<typeof packageSchema>;

export const serverJson = z
  .object({
    $schema: z.string().optional(),
    name: z.string().regex(NAME_RE, "name must be reverse-DNS: namespace/name"),
    title: z.string().max(200).optional(),
    // Real registry data has entries without a description: they get one from the name.
    description: z.string().trim().max(5000).optional(),
    version: z.string().min(1, "version is required").max(255),
    websiteUrl: z.string().optional(),
    repository: z
      .object({ url: z.string(), source: z.string().optional(), id: z.string().optional(), subfolder: z.string().optional() })
      .optional(),
    packages: z.array(packageSchema).optional(),
    remotes: z.array(z.object({ type: z.string(), url: z.string() }).passthrough()).optional(),
  })
  .passthrough();
export type ServerJson = z.infer<typeof serverJson>;

// The 2025-05 seed format (snake_case) of the official registry's snapshot files.
const legacyEntry = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    repository: z.object({ url: z.string(), source: z.string().optional(), id: z.string().optional() }).passthrough().optional(),
    version_detail: z.object({ version: z.string() }).passthrough(),
    packages: z
      .array(
        z
          .object({
            registry_name: z.string(),
            name: z.string(),
            version: z.string().optional(),
            environment_variables: z.array(z.object({ name: z.string(), description: z.string().optional() }).passthrough()).optional(),
            package_arguments: z.array(z.object({}).passthrough()).optional(),
          })
          .passthrough(),
      )
      .optional(),
    remotes: z.array(z.object({ transport_type: z.string(), url: z.string() }).passthrough()).optional(),
  })
  .passthrough();

/** Accepts either format and returns the current one (unvalidated: serverJson.safeParse decides). */
export function normalise(entry: unknown): unknown {
  const legacy = legacyEntry.safeParse(entry);
  if (!legacy.success) return entry;
  const e = legacy.data;
  return {
    name: e.name,
    description: e.description,
    version: e.version_detail.version,
    repository: e.repository?.url
      ? { url: e.repository.url, source: e.repository.source, ...(e.repository.id ? { id: e.repository.id } : {}) }
      : undefined,
    packages: e.packages?.map((p) => ({
      registryType: p.registry_name === "docker" ? "oci" : p.registry_name,
      identifier: p.name,
      ...(p.version ? { version: p.version } : {}),
      transport: { type: "stdio" },
      ...(p.environment_variables?.length
        ? {
            environmentVariables: p.environment_variables.map((v) => ({
              name: v.name,
              ...(v.description ? { description: v.description } : {}),
            })),
          }
        : {}),
      // The snapshot's PyPI arguments are uv's own command lines (--directory <checkout>, --with, the
      // script), not the server's: they are kept as the runtime's arguments, which no command here uses.
      ...(p.package_arguments?.length
        ? p.registry_name === "pypi"
          ? { runtimeArguments: p.package_arguments }
          : { packageArguments: p.package_arguments }
        : {}),
    })),
    remotes: e.remotes?.map((r) => ({ type: r.transport_type, url: r.url })),
  };
}

const CATEGORY_HINTS: Array<[RegExp, (typeof CATEGORIES)[number]]> = [
  [/\b(postgres|mysql|sqlite|database|sql|mongo|redis|supabase|snowflake|bigquery|duckdb|storage|s3)\b/i, "Data & Storage"],
  [/\b(search|scrap|crawl|web|browser|news|wiki|docs?|content|youtube|notion)\b/i, "Content & Search"],
  [/\b(memory|llm|ai|rag|vector|embedding|agent|reasoning|image generation)\b/i, "AI & Memory"],
  [/\b(aws|azure|gcp|google cloud|cloud|kubernetes|k8s|docker|terraform|vercel|cloudflare)\b/i, "Cloud Services"],
  [/\b(slack|email|e-mail|discord|chat|telegram|sms|whatsapp|teams|message)\b/i, "Communication"],
  [/\b(file|filesystem|shell|terminal|system|time|os|desktop)\b/i, "System & Utilities"],
];

export function guessCategory(text: string): (typeof CATEGORIES)[number] {
  for (const [re, c] of CATEGORY_HINTS) if (re.test(text)) return c;
  return "Development Tools";
}

export function slugFor(name: string): string {
  const [ns = "", leaf = ""] = name.split("/");
  const owner = ns.split(".").pop() ?? "";
  const base = leaf.toLowerCase() === owner.toLowerCase() || !owner ? leaf : `${owner}-${leaf}`;
  return (
    base
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 90) || "server"
  );
}

function titleFor(s: ServerJson): string {
  if (s.title) return s.title;
  const leaf = s.name.split("/")[1] ?? s.name;
  return leaf
    .replace(/[-_.]+/g, " ")
    .replace(/\b\w/g, (c) => c.toUpperCase())
    .trim();
}

function keysFrom(pkgs: RegistryPackage[] | undefined): RequiredKey[] | null {
  const seen = new Map<string, RequiredKey>();
  for (const p of pkgs ?? []) {
    for (const v of p.environmentVariables ?? []) {
      // A variable a deployment may not set (PATH, HOME, ...) is the platform's, not a key to ask for.
      if (v.isRequired === false || seen.has(v.name) || !settableEnv(v.name)) continue;
      const d = v.description && !v.description.startsWith("${") ? v.description : v.name;
      seen.set(v.name, { key: v.name, env_var: v.name, description: d.slice(0, 500) });
    }
  }
  return seen.size ? [...seen.values()] : null;
}

// A fixed argument the command may carry: a plain token, not a placeholder ("<path>", "${VAR}",
// "YOUR_KEY") that the publisher meant a user to fill in.
const LITERAL = /^[A-Za-z0-9@%+=:,./_~-]{1,200}$/;
const literal = (v: unknown): v is string =>
  typeof v === "string" && LITERAL.test(v) && !/^(your|path|absolute|\/path)|your[_-]|_here$/i.test(v);

/** A package's fixed arguments (positional values, named options with literal values); null when one cannot be given. */
function fixedArguments(p: RegistryPackage): string[] | null {
  const out: string[] = [];
  for (const a of p.packageArguments ?? []) {
    if (a.type === "positional") {
      if (!literal(a.value)) return null;
      out.push(a.value);
    } else if (a.type === "named" && typeof a.name === "string" && /^--?[A-Za-z0-9][A-Za-z0-9-]*$/.test(a.name)) {
      if (a.value === undefined) out.push(a.name);
      else if (literal(a.value)) out.push(a.name, a.value);
      else return null;
    } else return null;
  }
  return out;
}

/**
 * The command that runs an entry's package here: `npx -y pkg@version` for npm, `uvx pkg==version`
 * for PyPI, with the package's fixed arguments when they are all literal. Other registries (oci,
 * nuget, ...) have none: the entry's page says why it cannot be deployed.
 */
function commandFrom(pkgs: RegistryPackage[] | undefined): string | null {
  const npm = pkgs?.find((p) => p.registryType === "npm" && /^(@[a-z0-9._-]+\/)?[a-z0-9._-]+$/i.test(p.identifier));
  if (npm) {
    const v = npm.version && /^[\w.+-]+$/.test(npm.version) && npm.version !== "latest" ? `@${npm.version}` : "";
    return `npx -y ${npm.identifier}${v}`;
  }
  const pypi = pkgs?.find((p) => p.registryType === "pypi" && /^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/.test(p.identifier));
  if (pypi) {
    const v = pypi.version && /^\d[\w.]*$/.test(pypi.version) ? `==${pypi.version}` : "";
    const args = fixedArguments(pypi) ?? [];
    // Whole arguments only: a command cut short would pass a different value.
    let command = `uvx ${pypi.identifier}${v}`;
    for (const a of args) {
      if (command.length + 1 + a.length > 500) break;
      command += ` ${a}`;
    }
    return command;
  }
  return null;
}

const httpUrl = (u: string | undefined) => (u && /^https?:\/\/\S+$/i.test(u) ? u : null);

/** A validated server.json as a catalogue row (imported entries are approved). */
export function toRow(s: ServerJson, id: string): NewServerRow {
  const leafNs = s.name.split("/")[0] ?? "";
  return {
    id,
    name: titleFor(s).slice(0, 200),
    description: s.description || `${titleFor(s)} MCP server`,
    category: guessCategory(`${s.name} ${s.description ?? ""}`),
    type: leafNs === "io.modelcontextprotocol" ? "Reference" : "Community",
    source: "imported",
    url: httpUrl(s.remotes?.[0]?.url),
    tags: [
      ...new Set([leafNs.split(".").pop() ?? "", ...(s.packages ?? []).map((p) => p.registryType)].filter((t) => t && t !== "unknown")),
    ].slice(0, 5),
    repositoryUrl: httpUrl(s.repository?.url),
    homepage: httpUrl(s.websiteUrl),
    documentation: null,
    npxCommand: commandFrom(s.packages),
    requiredKeys: keysFrom(s.packages),
    isApproved: true,
    registryName: s.name,
    version: s.version,
    packages: s.packages ?? null,
  };
}

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
        status: "active",
        publishedAt: r.createdAt.toISOString(),
        updatedAt: r.updatedAt.toISOString(),
        isLatest: true,
      },
    },
  };
}

/** The namespace for entries that were not imported: this instance's host, reversed. */
export function namespaceFor(publicUrl: string): string {
  const host = new URL(publicUrl).hostname.toLowerCase().replace(/[^a-z0-9.-]/g, "");
  return host.split(".").reverse().join(".") || "localhost";
}
