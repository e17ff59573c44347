import type { ConnectedAppView } from "~/shared/oauth.js";
import { createHash } from "node:crypto";
import type { Db } from "../../db/client.js";
import { KEY_PATTERN } from "../api-keys/api-keys.js";
import { deleteGrantsFor, findLiveAccessToken, listGrants, recordGrantUse } from "./repo.js";

export interface AccessGrant {
  userId: string;
  clientId: string;
  resource: string;
  scopes: string[];
  expiresAt: Date;
}

/** How the plugin stores a token: SHA-256, base64url without padding. */
export const hashToken = (token: string) => createHash("sha256").update(token).digest("base64url");

/**
 * The grant behind an OAuth access token (any Bearer value not shaped like an sb_ API key), or
 * null: unknown, expired, revoked, not bound to exactly one of its user's deployments. One
 * indexed lookup of the token's hash.
 */
export async function verifyAccessToken(db: Db, token: string): Promise<AccessGrant | null> {
  if (!token || token.length > 512 || KEY_PATTERN.test(token)) return null;
  return (await findLiveAccessToken(db, hashToken(token))) ?? null;
}

/** Records that a grant was used (the caller throttles: at most once a minute per grant). */
export async function touchGrant(db: Db, grant: AccessGrant): Promise<void> {
  await recordGrantUse(db, { userId: grant.userId, clientId: grant.clientId, resource: grant.resource });
}

/** The 'Connected apps' of a user: one row per (client, deployment) with a live refresh or access token. */
export type ConnectedApp = ConnectedAppView;

const appId = (clientId: string, resource: string) => Buffer.from(JSON.stringify([clientId, resource])).toString("base64url");

function parseAppId(id: string): { clientId: string; resource: string } | null {
  try {
    const v = JSON.parse(Buffer.from(id, "base64url").toString("utf8")) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && typeof v[1] === "string" && v[0] && v[1])
      return { clientId: v[0], resource: v[1] };
  } catch {
    // not one of ours
  }
  return null;
}

function hostOf(uri: string | undefined): string {
  if (!uri) return "";
  try {
    return new URL(uri).host;
  } catch {
    return "";
  }
}

export async function listConnectedApps(db: Db, userId: string): Promise<ConnectedApp[]> {
  return (await listGrants(db, userId)).map((g) => ({
    id: appId(g.clientId, g.resource),
    clientName: g.clientName?.trim() || g.clientId,
    redirectHost: hostOf(g.redirectUris[0]),
    deployment: g.deploymentId && g.serverRef && g.proxyId ? { id: g.deploymentId, serverId: g.serverRef, proxyId: g.proxyId } : null,
    grantedAt: g.grantedAt.toISOString(),
    lastUsedAt: g.lastUsedAt?.toISOString() ?? null,
  }));
}

/** Revokes every access and refresh token (and the consent) of that app for that user; false if not theirs. */
export async function revokeConnectedApp(db: Db, userId: string, id: string): Promise<boolean> {
  const g = parseAppId(id);
  if (!g) return false;
  return db.transaction(async (tx) => (await deleteGrantsFor(tx, { ...g, userId })) > 0);
}

/** The name a revoked app is shown under, before it goes. */
export async function connectedAppName(db: Db, userId: string, id: string): Promise<string | null> {
  const app = (await listConnectedApps(db, userId)).find((a) => a.id === id);
  return app?.clientName ?? null;
}
