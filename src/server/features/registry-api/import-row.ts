// A validated server.json as a catalogue row: its title, category, tags, required keys and the
// command that runs its npm or PyPI package or its container image here.
import { CATEGORIES, type RequiredKey } from "~/shared/catalog.js";
import { settableEnv } from "~/shared/deployments.js";
import type { NewServerRow } from "../catalog/repo.js";
import { IMAGE_MCP_PATH, parseDockerCommand, parseImageRef } from "../runtime/sources/image/docker.js";
import type { RegistryPackage, ServerJson } from "./format.js";

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

type RemoteHeader = { name?: unknown; description?: unknown; isRequired?: unknown; isSecret?: unknown };

/**
 * A remote's headers the user must give (required or secret) as the entry's keys: `X-API-Key` is
 * asked as `X_API_Key`, and a connection sends it back as the header `X-API-Key`.
 */
function headerKeys(remotes: ServerJson["remotes"]): RequiredKey[] | null {
  const headers = (remotes?.[0] as { headers?: unknown } | undefined)?.headers;
  const keys: RequiredKey[] = [];
  for (const h of Array.isArray(headers) ? (headers as RemoteHeader[]) : []) {
    if (typeof h?.name !== "string" || (h.isRequired !== true && h.isSecret !== true)) continue;
    const envVar = h.name.replace(/-/g, "_");
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(envVar) || keys.some((k) => k.env_var === envVar)) continue;
    const d = typeof h.description === "string" && h.description.trim() ? h.description.trim() : h.name;
    keys.push({ key: h.name.slice(0, 100), env_var: envVar, description: d.slice(0, 500) });
  }
  return keys.length ? keys.slice(0, 20) : null;
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

/** The port of a streamable-http transport's URL inside the container (`http://localhost:8080/mcp`), or null when it is not that. */
function imagePort(url: unknown): number | null {
  if (typeof url !== "string" || !URL.canParse(url)) return null;
  const u = new URL(url);
  if (u.protocol !== "http:" || !["localhost", "127.0.0.1", "0.0.0.0"].includes(u.hostname) || u.search) return null;
  if (u.pathname.replace(/\/$/, "") !== IMAGE_MCP_PATH) return null;
  const port = Number(u.port || 80);
  return port >= 1 && port <= 65535 ? port : null;
}

/**
 * A container image's command: `docker run -i --rm [-e KEY ...] <image> [fixed arguments]` for a
 * stdio image, when it parses under the docker grammar (docker.ts). The registry's `oci` packages
 * name the image (with its version as the tag when the identifier carries none); the older
 * snapshot's `docker` ones spell the whole docker command line in their arguments.
 */
function imageCommand(p: RegistryPackage): string | null {
  // An image that speaks streamable HTTP at /mcp on a port of its own: `docker run -p PORT ...`.
  let publish = "-i";
  if (p.transport?.type && p.transport.type !== "stdio") {
    const port = p.transport.type === "streamable-http" ? imagePort(p.transport.url) : null;
    if (port === null) return null;
    publish = `-p ${port}`;
  }
  const keys = (p.environmentVariables ?? []).filter((v) => settableEnv(v.name)).map((v) => `-e ${v.name}`);
  const attempt = (command: string) => {
    try {
      parseDockerCommand(command);
      return command;
    } catch {
      return null;
    }
  };
  const ref = parseImageRef(p.identifier);
  if (ref && p.identifier.includes("/")) {
    const pinned =
      ref.tag || ref.digest || !p.version || !/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(p.version)
        ? p.identifier
        : `${p.identifier}:${p.version}`;
    const args = fixedArguments(p);
    if (args && !args.includes("-i")) return attempt([`docker run ${publish} --rm`, ...keys, pinned, ...args].join(" "));
  }
  if (publish !== "-i") return null;
  // The snapshot's form: the arguments are docker's own command line (-i, --rm, -e NAME, the image, its arguments).
  const tokens = (p.packageArguments ?? []).flatMap((a) => (typeof a.value === "string" ? a.value.trim().split(/\s+/) : []));
  // A placeholder anywhere ("/path/to/...", "your_token") is the user's to fill in: no command.
  if (tokens.length === 0 || !tokens.every(literal)) return null;
  return attempt(["docker run -i", ...tokens.filter((x) => x !== "-i")].join(" "));
}

/**
 * The command that runs an entry's package here: `npx -y pkg@version` for npm, `uvx pkg==version`
 * for PyPI, with the package's fixed arguments when they are all literal, `docker run -i ...` for
 * a stdio image. Other registries (nuget, ...) have none: the entry's page says why it cannot be deployed.
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
  for (const p of pkgs ?? []) {
    if (p.registryType !== "oci" && p.registryType !== "docker") continue;
    const command = imageCommand(p);
    if (command && command.length <= 500) return command;
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
    // A server its publisher hosts asks for the headers its remote declares (sent as such by a connection).
    requiredKeys: keysFrom(s.packages) ?? (s.packages?.length ? null : headerKeys(s.remotes)),
    isApproved: true,
    registryName: s.name,
    version: s.version,
    packages: s.packages ?? null,
  };
}
