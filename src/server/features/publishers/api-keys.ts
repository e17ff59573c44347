import { createHash, randomBytes } from "node:crypto";
import { API_KEY_TEXT, type ApiKeyView } from "../../../shared/publishers.js";
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

export const hashKey = (key: string) => createHash("sha256").update(key).digest("hex");

export function newKey(): string {
  return KEY_PREFIX + randomBytes(32).toString("base64url");
}

export function keyView(r: ApiKeyRow): ApiKeyView {
  return { name: r.name, prefix: r.prefix, createdAt: r.createdAt.toISOString(), lastUsedAt: r.lastUsedAt?.toISOString() ?? null };
}

export async function listApiKeys(db: Db, viewer: Viewer): Promise<ApiKeyView[]> {
  return (await listKeys(db, viewer.id)).map(keyView);
}

/** The full key is in this answer and nowhere else, ever. */
export async function createApiKey(db: Db, viewer: Viewer, name: string): Promise<{ apiKey: string; key: ApiKeyView }> {
  const apiKey = newKey();
  const row = await insertKey(db, { userId: viewer.id, name, prefix: apiKey.slice(0, DISPLAY_CHARS), keyHash: hashKey(apiKey) });
  if (!row) throw new AppError("conflict", API_KEY_TEXT.duplicate);
  return { apiKey, key: keyView(row) };
}

/** Deletes the key; `revocations` then tells every cache of verified keys (the gateway's) at once. */
export async function revokeApiKey(deps: { db: Db; revocations: KeyRevocations }, viewer: Viewer, name: string): Promise<string> {
  if (!(await deleteKey(deps.db, viewer.id, name))) throw new AppError("not_found", API_KEY_TEXT.notFound);
  deps.revocations.revoked();
  return API_KEY_TEXT.revoked(name);
}

/** The key's owner, or null for a malformed, unknown or revoked key. Checked on every request. */
export async function viewerFromApiKey(db: Db, key: string): Promise<Viewer | null> {
  if (!KEY_PATTERN.test(key)) return null;
  const r = await findKeyOwner(db, hashKey(key));
  if (!r) return null;
  if (!r.lastUsedAt || Date.now() - r.lastUsedAt.getTime() > TOUCH_AFTER_MS) await touchKey(db, r.keyId).catch(() => undefined);
  return { id: r.id, email: r.email, emailVerified: r.emailVerified, username: r.username, fullName: r.fullName, isAdmin: r.isAdmin, viaApiKey: true };
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
