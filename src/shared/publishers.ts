import { z } from "zod";
import { optionalUrl, type RequiredKey } from "./catalog.js";

// Owned servers and API keys: texts and schemas (docs/product.md#publishers).
export const SERVER_FORM_TEXT = {
  newTitle: "Register New Server",
  editTitle: "Edit Server",
  backToServers: "Back to Servers",
  required: "Qualified name, display name, and description are required",
  qualifiedNameFormat: 'Qualified name must be in the format "owner/name" using only letters, numbers, hyphens, and underscores',
  connectionRequired: "All connections must have a type and URL",
  configSchemaJson: "Config schema must be valid JSON",
  atLeastOneConnection: "At least one connection is required",
  connectionUrl: "Connection URLs must be ws(s)://, http(s):// or grpc(s):// addresses",
  version: "Version must look like 1.0.0",
  notYourName: (username: string) => `The owner part of the qualified name must be your username (${username})`,
  duplicate: "A server with this qualified name already exists",
  loadFailed: "Failed to load server data. The server might not exist or you may not have permission to edit it.",
  saveFailed: "Failed to save server. Please check your inputs and try again.",
  updated: "Server updated successfully",
  registered: "Server registered successfully",
  notOwner: "You can only edit servers you own.",
  mustLogin: "You must be logged in to register a server",
} as const;

export const API_KEY_TEXT = {
  title: "API Keys",
  nameRequired: "API key name is required",
  duplicate: "An API key with this name already exists",
  notFound: "API key not found",
  loadFailed: "Failed to load API keys. Please try again later.",
  generateFailed: "Failed to generate API key. Please try again later.",
  revokeFailed: "Failed to revoke API key. Please try again later.",
  generated: "API key generated successfully",
  revoked: (name: string) => `API key "${name}" revoked successfully`,
  copied: "API key copied to clipboard",
  empty: "You don't have any API keys yet.",
  onceWarning: "Copy this key now. You won't be able to see it again.",
  invalid: "Invalid or revoked API key",
  inQuery: "API keys are accepted only in the Authorization header",
} as const;

export const CONNECTION_TYPES = ["ws", "http", "grpc"] as const;
export const DEFAULT_VERSION = "1.0.0";

/** owner/name, letters, digits, hyphens and underscores on both sides. */
export const QUALIFIED_NAME = /^[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+$/;

const CONNECTION_SCHEMES: Record<(typeof CONNECTION_TYPES)[number], string[]> = {
  ws: ["ws:", "wss:"],
  http: ["http:", "https:"],
  grpc: ["grpc:", "grpcs:", "http:", "https:"],
};

export const connection = z
  .object({
    type: z.enum(CONNECTION_TYPES, { error: SERVER_FORM_TEXT.connectionRequired }),
    url: z.string({ error: SERVER_FORM_TEXT.connectionRequired }).trim().min(1, SERVER_FORM_TEXT.connectionRequired).max(2000),
    configSchema: z.record(z.string(), z.unknown(), { error: SERVER_FORM_TEXT.configSchemaJson }).optional().default({}),
  })
  .superRefine((c, ctx) => {
    let protocol = "";
    try {
      protocol = new URL(c.url).protocol;
    } catch {
      /* reported below */
    }
    if (!CONNECTION_SCHEMES[c.type].includes(protocol)) ctx.addIssue({ code: "custom", path: ["url"], message: SERVER_FORM_TEXT.connectionUrl });
  });
export type Connection = z.infer<typeof connection>;

const required = (max: number) => z.string({ error: SERVER_FORM_TEXT.required }).trim().min(1, SERVER_FORM_TEXT.required).max(max);

/** The body of POST /api/servers and PUT /api/servers/{qualifiedName} (docs/product.md#owned-servers). */
export const serverInput = z.object({
  qualifiedName: required(201).regex(QUALIFIED_NAME, SERVER_FORM_TEXT.qualifiedNameFormat),
  displayName: required(200),
  description: required(5000),
  version: z.preprocess(
    (v) => (v === undefined || v === null || (typeof v === "string" && v.trim() === "") ? DEFAULT_VERSION : v),
    z.string().trim().max(50).regex(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/, SERVER_FORM_TEXT.version),
  ),
  homepage: optionalUrl("Homepage"),
  repositoryUrl: optionalUrl("Repository URL"),
  keywords: z
    .preprocess((v) => (typeof v === "string" ? splitKeywords(v) : v), z.array(z.string().trim().max(50)).max(30))
    .optional()
    .default([])
    .transform((k) => [...new Set(k.map((x) => x.trim()).filter(Boolean))]),
  documentation: z.string().max(100_000).nullable().optional(),
  connections: z.array(connection, { error: SERVER_FORM_TEXT.atLeastOneConnection }).min(1, SERVER_FORM_TEXT.atLeastOneConnection).max(20),
});
export type ServerInput = z.input<typeof serverInput>;

/** Keywords are split on commas, trimmed, empties dropped (docs/product.md#owned-servers). */
export function splitKeywords(text: string): string[] {
  return text
    .split(",")
    .map((k) => k.trim())
    .filter(Boolean);
}

/** camelCase or kebab-case property names as environment variables: githubToken -> GITHUB_TOKEN. */
export function envVarFor(property: string): string {
  return property
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9_]+/g, "_")
    .replace(/^([0-9])/, "_$1")
    .toUpperCase();
}

/** The keys a deployment needs: the required properties of every connection's configSchema. */
export function requiredKeysFromConnections(connections: Connection[]): RequiredKey[] {
  const out = new Map<string, RequiredKey>();
  for (const c of connections) {
    const schema = c.configSchema as { required?: unknown; properties?: Record<string, { title?: unknown; description?: unknown }> };
    if (!Array.isArray(schema.required)) continue;
    for (const name of schema.required) {
      if (typeof name !== "string" || !name) continue;
      const env = envVarFor(name);
      if (out.has(env)) continue;
      const prop = schema.properties?.[name];
      out.set(env, {
        key: typeof prop?.title === "string" && prop.title ? prop.title : name,
        env_var: env,
        description: typeof prop?.description === "string" ? prop.description : "",
      });
    }
  }
  return [...out.values()];
}

export const apiKeyCreate = z.object({
  name: z.string({ error: API_KEY_TEXT.nameRequired }).trim().min(1, API_KEY_TEXT.nameRequired).max(100),
});

export const apiKeyView = z.object({
  name: z.string(),
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
});
export type ApiKeyView = z.infer<typeof apiKeyView>;

export const ownedServerView = z.object({
  qualifiedName: z.string(),
  displayName: z.string(),
  description: z.string(),
  version: z.string(),
  homepage: z.string().nullable(),
  repositoryUrl: z.string().nullable(),
  keywords: z.array(z.string()),
  documentation: z.string().nullable(),
  connections: z.array(z.object({ type: z.string(), url: z.string(), configSchema: z.record(z.string(), z.unknown()) })),
  owner: z.object({ id: z.string(), username: z.string() }),
  required_keys: z.array(z.object({ key: z.string(), env_var: z.string(), description: z.string() })),
  useCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type OwnedServerView = z.infer<typeof ownedServerView>;
