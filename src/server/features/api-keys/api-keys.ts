import { hash, randomBytes } from "node:crypto";
import { API_KEY_TEXT, type ApiKeyView, type KeyScope } from "~/shared/publishers.js";
import type { ServerKind } from "~/shared/deployments.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import type { KeyRevocations } from "./revocations.js";
import { deleteKey, findKeyOwner, insertKey, listKeys, touchKey, type ApiKeyRow } from "./repo.js";

/**
 * Keys are `sb_` + 256 random bits in base64url: the prefix lets secret scanners spot a leaked
 * key; only its SHA-256 and the first characters (to tell keys apart in the list) are stored.
 */
export const KEY_PREFIX = "sb_";
export const KEY_PATTERN = /^sb_[A-Za-z0-9_-]{43}$/;
const DISPLAY_CHARS = 11;
/** last_used_at is written at most once a minute per key, not on every request. */
const TOUCH_AFTER_MS = 60_000;

/** sha256, hex: one-shot (crypto.hash), as every gateway request hashes its credential */
export const hashKey = (key: string) => hash("sha256", key, "hex");

export function newKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

export function keyView(r: ApiKeyRow): ApiKeyView {
  return {
    name: r.name,
    prefix: r.prefix,
    createdAt: r.createdAt.toISOString(),
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
    scopes: r.scopes,
    resources: r.resources ?? null,
    expiresAt: r.expiresAt?.toISOString() ?? null,
    legacy: r.legacy,
  };
}

/**
 * A server as a key names it: `catalog:<id>` or `owned:<owner>/<name>` (a bare id is read the same
 * way), or one of the viewer's own connections by URL (`remote:<name>`) or toolsets (`toolset:<name>`).
 */
export function resourceOf(server: { kind: ServerKind; ref: string }): string {
  return `${server.kind}:${server.ref}`;
}
const KINDS = /^(catalog|owned|remote|toolset):/;
const normalResource = (r: string) => (KINDS.test(r) ? r : r.includes("/") ? `owned:${r}` : `catalog:${r}`);

/**
 * The servers a key may name, looked up for api-keys by the platform assembly (src/server/platform.ts
 * fills it with catalog's and publishers' repos), so api-keys imports neither feature.
 */
export interface KeyServers {
  catalogServer(id: string): Promise<{ id: string } | undefined>;
  /** the registered server by name when `userId` may use it (theirs, or an organisation's they are in) */
  ownedServer(qualifiedName: string, userId: string): Promise<{ qualifiedName: string } | undefined>;
  /** whether `userId` (or an organisation they are in) has a connection by URL or a toolset of that name */
  userHas(userId: string, kind: "remote" | "toolset", name: string): Promise<boolean>;
}

export interface NewKey {
  name: string;
  scopes: KeyScope[];
  resources: string[] | null;
  expiresAt: Date | null;
}

export async function listApiKeys(db: Db, viewer: Viewer): Promise<ApiKeyView[]> {
  return (await listKeys(db, viewer.id)).map(keyView);
}

/** The full key is in this answer and nowhere else, ever. Only a sign-in makes keys (a key cannot mint another). */
export async function createApiKey(
  deps: { db: Db; servers: KeyServers },
  viewer: Viewer,
  input: NewKey,
): Promise<{ apiKey: string; key: ApiKeyView }> {
  if (viewer.viaApiKey) throw new AppError("forbidden", API_KEY_TEXT.needsSignIn);
  const apiKey = newKey();
  let resources: string[] | null = null;
  if (input.resources) {
    resources = [];
    for (const r of input.resources.map(normalResource)) {
      const known = await deployable(deps.servers, viewer, r);
      if (!known)
        throw new AppError("validation_failed", API_KEY_TEXT.unknownResource(r.replace(/^(catalog|owned):/, "")), {
          field: "resources",
        });
      if (!resources.includes(known)) resources.push(known);
    }
  }
  const row = await insertKey(deps.db, {
    userId: viewer.id,
    name: input.name,
    prefix: apiKey.slice(0, DISPLAY_CHARS),
    keyHash: hashKey(apiKey),
    scopes: input.scopes,
    resources,
    expiresAt: input.expiresAt,
  });
  if (!row) throw new AppError("conflict", API_KEY_TEXT.duplicate);
  return { apiKey, key: keyView(row) };
}

/** A key may name a catalogue entry or a server its owner may use (theirs, or an organisation's they are in), nothing else: the name as deployments store it. */
async function deployable(servers: KeyServers, viewer: Viewer, resource: string): Promise<string | undefined> {
  const [, kind, ref] = /^(catalog|owned|remote|toolset):(.+)$/.exec(resource) ?? [];
  if (!kind || !ref) return undefined;
  // A connection by URL or a toolset is a name of the viewer's own: it must exist now.
  if (kind === "remote" || kind === "toolset") return (await servers.userHas(viewer.id, kind, ref)) ? resourceOf({ kind, ref }) : undefined;
  if (kind === "catalog") {
    const server = await servers.catalogServer(ref);
    return server && resourceOf({ kind: "catalog", ref: server.id });
  }
  const owned = await servers.ownedServer(ref, viewer.id);
  return owned && resourceOf({ kind: "owned", ref: owned.qualifiedName });
}

/** Deletes the key; `revocations` then tells every cache of verified keys (the gateway's) at once. */
export async function revokeApiKey(deps: { db: Db; revocations: KeyRevocations }, viewer: Viewer, name: string): Promise<string> {
  if (viewer.viaApiKey) throw new AppError("forbidden", API_KEY_TEXT.needsSignIn);
  if (!(await deleteKey(deps.db, viewer.id, name))) throw new AppError("not_found", API_KEY_TEXT.notFound);
  deps.revocations.revoked();
  return API_KEY_TEXT.revoked(name);
}

/** What a key is allowed: its scopes, the servers it may reach (null: all) and when it expires. */
export interface KeyGrant {
  scopes: readonly string[];
  resources: readonly string[] | null;
  expiresAt: Date | null;
}

/** A viewer's key (if it came with one) reaches this server's deployment: any, unless the key names servers. */
export function keyReaches(viewer: Viewer, server: { kind: ServerKind; ref: string }): boolean {
  return !viewer.key?.resources || viewer.key.resources.includes(resourceOf(server));
}

export const isExpired = (grant: KeyGrant) => grant.expiresAt !== null && grant.expiresAt.getTime() <= Date.now();

/** The owner and grant of a key, expired or not (the gateway says which). */
export async function keyOwner(db: Db, key: string): Promise<(Viewer & { key: KeyGrant }) | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const r = await findKeyOwner(db, hashKey(key));
  if (!r) return null;
  if (!r.lastUsedAt || Date.now() - r.lastUsedAt.getTime() > TOUCH_AFTER_MS) await touchKey(db, r.keyId).catch(() => undefined);
  return {
    id: r.id,
    email: r.email,
    emailVerified: r.emailVerified,
    username: r.username,
    fullName: r.fullName,
    isAdmin: false,
    viaApiKey: true,
    key: { scopes: r.scopes, resources: r.resources, expiresAt: r.expiresAt },
  };
}

/** A key in the query string is refused: URLs end up in logs, histories and Referer headers. */
export function apiKeyInQuery(url: URL): boolean {
  for (const [name, value] of url.searchParams) {
    // Any parameter holding a key, or one named like a key parameter (better-auth's own one-time
    // `token` links are not API keys and pass).
    if (/^(api[_-]?key|access[_-]?token)$/i.test(name) || KEY_PATTERN.test(value)) return true;
  }
  return false;
}
