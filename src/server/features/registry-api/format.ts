// The official MCP Registry's server.json format (v0.1 API): its schemas, the 2025-05 seed format
// it also accepts, and the namespace of this instance's own entries. Rows from it: import-row.ts;
// rows as it: server-response.ts.
import { z } from "zod";

export const SERVER_SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
export const NAME_RE = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

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

/** The namespace for entries that were not imported: this instance's host, reversed. */
export function namespaceFor(publicUrl: string): string {
  const host = new URL(publicUrl).hostname.toLowerCase().replace(/[^a-z0-9.-]/g, "");
  return host.split(".").reverse().join(".") || "localhost";
}
