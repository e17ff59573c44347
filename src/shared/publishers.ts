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
  orgNotAllowed: (org: string) =>
    `Only ${org}'s owners and admins (and its members, where it lets them deploy) can register or edit its servers`,
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
  expired: "This API key has expired",
  needsSignIn: "This action needs you to sign in: an API key cannot do it",
  missingScope: (scope: string) => `This API key lacks the "${scope}" scope`,
  notForThisServer: "This API key is not for this server's deployment",
  scopesLabel: "Scopes",
  scopeRequired: "Choose at least one scope",
  expiryLabel: "Expires",
  resourcesLabel: "Deployments it may reach",
  resourcesAll: "All of my deployments",
  legacy: "Made before keys had scopes: it has every scope. Make a new one with less and revoke this one.",
  badExpiry: "The expiry date must be a day in the future, within 10 years",
  unknownResource: (id: string) => `"${id}" is not a server you can deploy`,
} as const;

/** What a key may open (docs/product.md#api-keys): nothing else than these, never the account, keys, billing or admin. */
export const KEY_SCOPES = ["mcp", "deploy", "servers"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
export const SCOPE_TEXT: Record<KeyScope, { label: string; help: string }> = {
  mcp: { label: "mcp", help: "Connect MCP clients to your deployments" },
  deploy: { label: "deploy", help: "Deploy, stop and list deployments and connections, their logs and settings" },
  servers: { label: "servers", help: "Register and edit your servers, submit catalogue entries" },
};
export const KEY_EXPIRIES = ["30", "90", "never", "custom"] as const;
export const EXPIRY_TEXT: Record<(typeof KEY_EXPIRIES)[number], string> = {
  "30": "In 30 days",
  "90": "In 90 days",
  never: "Never",
  custom: "On a date",
};

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
    if (!CONNECTION_SCHEMES[c.type].includes(protocol))
      ctx.addIssue({ code: "custom", path: ["url"], message: SERVER_FORM_TEXT.connectionUrl });
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
    z
      .string()
      .trim()
      .max(50)
      .regex(/^\d+\.\d+\.\d+([-+][0-9A-Za-z.-]+)?$/, SERVER_FORM_TEXT.version),
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

const oneOrMany = (v: unknown) => (typeof v === "string" ? [v] : v);

/**
 * POST /api/auth/apikeys, and the API Keys page's form (the same fields): a name; the scopes
 * (default mcp only); the servers whose deployments it may reach (default all: `catalog:<id>` or
 * `owned:<owner>/<name>`, or a bare id); an expiry (`expiry`: 30/90 days, never, or custom with
 * `expiresAt`, a day; default never). Only `name` is the spec's.
 */
export const apiKeyCreateBody = z.object({
  name: z.string({ error: API_KEY_TEXT.nameRequired }).trim().min(1, API_KEY_TEXT.nameRequired).max(100),
  scopes: z
    .preprocess(
      oneOrMany,
      z
        .array(z.enum(KEY_SCOPES, { error: API_KEY_TEXT.scopeRequired }))
        .min(1, API_KEY_TEXT.scopeRequired)
        .max(3),
    )
    .optional(),
  resources: z.preprocess(oneOrMany, z.array(z.string().trim().min(1).max(210)).max(50)).optional(),
  expiry: z.enum(KEY_EXPIRIES).optional(),
  expiresAt: z.string().trim().max(40).optional(),
});
/** A dated key expires within 10 years (a later date is what "never" is for, and years past 9999 cannot be stored). */
const MAX_EXPIRY_MS = 10 * 366 * 86_400_000;
export const apiKeyCreate = apiKeyCreateBody.transform((v, ctx) => {
  let expiresAt: Date | null = null;
  if (v.expiry === "30" || v.expiry === "90") expiresAt = new Date(Date.now() + Number(v.expiry) * 86_400_000);
  else if (v.expiry === "custom" || (v.expiry === undefined && v.expiresAt)) {
    const t = v.expiresAt ? Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v.expiresAt) ? `${v.expiresAt}T23:59:59Z` : v.expiresAt) : NaN;
    if (!Number.isFinite(t) || t <= Date.now() || t > Date.now() + MAX_EXPIRY_MS)
      ctx.addIssue({ code: "custom", path: ["expiresAt"], message: API_KEY_TEXT.badExpiry });
    else expiresAt = new Date(t);
  }
  return {
    name: v.name,
    scopes: [...new Set(v.scopes ?? ["mcp"])] as KeyScope[],
    resources: v.resources?.length ? [...new Set(v.resources)] : null,
    expiresAt,
  };
});

export const apiKeyView = z.object({
  name: z.string(),
  prefix: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  scopes: z.array(z.string()),
  /** the servers whose deployments it may reach; null: all */
  resources: z.array(z.string()).nullable(),
  expiresAt: z.string().nullable(),
  /** made before keys had scopes */
  legacy: z.boolean(),
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
  /** `username`: the owner part of its name (a person's username, or an organisation's slug); `org`: the organisation that owns it */
  owner: z.object({ id: z.string(), username: z.string(), org: z.object({ slug: z.string(), name: z.string() }).nullable() }),
  required_keys: z.array(z.object({ key: z.string(), env_var: z.string(), description: z.string() })),
  useCount: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type OwnedServerView = z.infer<typeof ownedServerView>;

/** One of the viewer's servers (GET /api/servers): `manage`, whether they may edit and deploy it (an organisation's: where their role allows). */
export const myServerView = ownedServerView.extend({ manage: z.boolean() });
export type MyServerView = z.infer<typeof myServerView>;
