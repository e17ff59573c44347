import { randomUUID } from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "../../db/client.js";
import { deployments, mcpServers, oauthAccessToken, oauthClient, oauthGrantUse, oauthResource, ownedServers } from "../../db/schema.js";
import { OAUTH_SCOPES } from "./resource.js";

// SQL of the OAuth feature. The plugin's own tables are written by the plugin (through the
// better-auth adapter); these are the reads and writes Switchboard adds around them.

export type { DbOrTx };

/**
 * The resource row of a deployment (inside the transaction that records it). A row from before a
 * change of PUBLIC_URL takes the new identifier; tokens bound to the old one stop matching.
 */
export async function insertDeploymentResource(tx: DbOrTx, deploymentId: string, identifier: string): Promise<void> {
  await tx
    .insert(oauthResource)
    .values({ id: randomUUID(), identifier, name: identifier, deploymentId, allowedScopes: [...OAUTH_SCOPES], disabled: false })
    .onConflictDoUpdate({ target: oauthResource.deploymentId, set: { identifier, name: identifier, updatedAt: new Date() } });
}

/** A verified custom domain's URL as a resource of its own (the row goes with the domain). */
export async function insertCustomResource(tx: DbOrTx, domain: string, identifier: string): Promise<void> {
  await tx
    .insert(oauthResource)
    .values({ id: randomUUID(), identifier, name: identifier, customDomain: domain, allowedScopes: [...OAUTH_SCOPES], disabled: false })
    .onConflictDoUpdate({ target: oauthResource.customDomain, set: { identifier, name: identifier, updatedAt: new Date() } });
}

/** Every token, consent entry and use record bound to the deployment's resource, and the resource row itself. */
export async function deleteDeploymentResource(tx: DbOrTx, deploymentId: string): Promise<number> {
  const rows = await tx
    .select({ identifier: oauthResource.identifier })
    .from(oauthResource)
    .where(eq(oauthResource.deploymentId, deploymentId));
  let tokens = 0;
  for (const { identifier } of rows) tokens += await deleteGrantsFor(tx, { resource: identifier });
  await tx.delete(oauthResource).where(eq(oauthResource.deploymentId, deploymentId));
  return tokens;
}

/**
 * Deletes the access and refresh tokens bound to `resource` (of one user and client when given),
 * drops the resource from the matching consents and forgets its use. Returns how many tokens went.
 */
export async function deleteGrantsFor(tx: DbOrTx, g: { resource: string; userId?: string; clientId?: string }): Promise<number> {
  const aud = JSON.stringify([g.resource]);
  const who = sql`${g.userId === undefined ? sql`true` : sql`user_id = ${g.userId}`} and ${g.clientId === undefined ? sql`true` : sql`client_id = ${g.clientId}`}`;
  const at = await tx.execute(sql`delete from oauth_access_token where resources @> ${aud}::jsonb and ${who}`);
  const rt = await tx.execute(sql`delete from oauth_refresh_token where resources @> ${aud}::jsonb and ${who}`);
  await tx.execute(sql`update oauth_consent set resources = coalesce((select jsonb_agg(r) from jsonb_array_elements(resources) r where r <> to_jsonb(${g.resource}::text)), '[]'::jsonb), updated_at = now()
    where resources @> ${aud}::jsonb and ${who}`);
  await tx.execute(sql`delete from oauth_consent where resources = '[]'::jsonb and ${who}`);
  await tx.execute(sql`delete from oauth_grant_use where resource = ${g.resource} and ${who}`);
  return (at.rowCount ?? 0) + (rt.rowCount ?? 0);
}

export interface DeploymentResource {
  deploymentId: string;
  ownerId: string;
  proxyId: string;
  serverKind: string;
  serverRef: string;
  serverName: string;
  identifier: string | null;
}

/** The deployment behind a proxy id, its owner, its server's name and its resource row (if any). */
export async function findDeploymentByProxyId(db: Db, proxyId: string): Promise<DeploymentResource | undefined> {
  const [r] = await db
    .select({
      deploymentId: deployments.id,
      ownerId: deployments.userId,
      proxyId: deployments.proxyId,
      serverKind: deployments.serverKind,
      serverRef: deployments.serverRef,
      serverName: sql<string>`coalesce(${mcpServers.name}, ${ownedServers.displayName}, ${deployments.serverRef})`,
      identifier: oauthResource.identifier,
    })
    .from(deployments)
    .leftJoin(oauthResource, eq(oauthResource.deploymentId, deployments.id))
    .leftJoin(mcpServers, and(eq(deployments.serverKind, "catalog"), eq(mcpServers.id, deployments.serverRef)))
    .leftJoin(ownedServers, and(eq(deployments.serverKind, "owned"), eq(ownedServers.qualifiedName, deployments.serverRef)))
    .where(eq(deployments.proxyId, proxyId));
  return r;
}

export interface AccessTokenRow {
  userId: string;
  clientId: string;
  resource: string;
  scopes: string[];
  expiresAt: Date;
}

/**
 * A live access token by the hash of its value: unrevoked, unexpired, bound to exactly one
 * resource that is a deployment of the token's user (its URL here, or at a verified custom
 * domain). One lookup by the token's unique index.
 */
export async function findLiveAccessToken(db: Db, tokenHash: string): Promise<AccessTokenRow | undefined> {
  const r = await db.execute<{ user_id: string; client_id: string; resource: string; scopes: string[]; expires_at: Date | string }>(sql`
    select t.user_id, t.client_id, r.identifier as resource, t.scopes, t.expires_at
      from oauth_access_token t
      join oauth_resource r on r.identifier = t.resources ->> 0 and not coalesce(r.disabled, false)
      left join custom_domains c on c.domain = r.custom_domain and c.status = 'verified'
      join deployments d on d.id = coalesce(r.deployment_id, c.deployment_id)
                          -- its owner's, or a member's of the organisation whose account owns it (features/orgs/accounts.ts)
                          and (d.user_id = t.user_id or (d.user_id like 'org\_%' and exists (
                                select 1 from member mb where mb.organization_id = substr(d.user_id, 5) and mb.user_id = t.user_id)))
     where t.token = ${tokenHash} and t.revoked is null and t.expires_at > now() and jsonb_array_length(t.resources) = 1`);
  const row = r.rows[0];
  if (!row) return undefined;
  return {
    userId: row.user_id,
    clientId: row.client_id,
    resource: row.resource,
    scopes: row.scopes ?? [],
    expiresAt: new Date(row.expires_at),
  };
}

export async function recordGrantUse(db: Db, g: { userId: string; clientId: string; resource: string }): Promise<void> {
  await db
    .insert(oauthGrantUse)
    .values({ ...g, lastUsedAt: new Date() })
    .onConflictDoUpdate({
      target: [oauthGrantUse.userId, oauthGrantUse.clientId, oauthGrantUse.resource],
      set: { lastUsedAt: new Date() },
    });
}

export interface GrantRow {
  clientId: string;
  resource: string;
  clientName: string | null;
  redirectUris: string[];
  deploymentId: string | null;
  serverRef: string | null;
  proxyId: string | null;
  grantedAt: Date;
  lastUsedAt: Date | null;
}

/** A user's grants: (client, resource) pairs with a live refresh or access token, oldest first. */
export async function listGrants(db: Db, userId: string): Promise<GrantRow[]> {
  const r = await db.execute<{
    client_id: string;
    resource: string;
    client_name: string | null;
    redirect_uris: string[] | null;
    deployment_id: string | null;
    server_ref: string | null;
    proxy_id: string | null;
    granted_at: Date | string;
    last_used_at: Date | string | null;
  }>(sql`
    with tokens as (
      select client_id, resources ->> 0 as resource, created_at, (revoked is null and expires_at > now()) as live
        from oauth_refresh_token where user_id = ${userId} and jsonb_array_length(coalesce(resources, '[]'::jsonb)) = 1
      union all
      select client_id, resources ->> 0, created_at, (revoked is null and expires_at > now())
        from oauth_access_token where user_id = ${userId} and jsonb_array_length(coalesce(resources, '[]'::jsonb)) = 1
    ), grants as (
      select client_id, resource, min(created_at) as granted_at from tokens group by client_id, resource having bool_or(live)
    )
    select g.client_id, g.resource, c.name as client_name, c.redirect_uris, d.id as deployment_id, d.server_ref, d.proxy_id,
           g.granted_at, u.last_used_at
      from grants g
      join oauth_client c on c.client_id = g.client_id
      left join oauth_resource r on r.identifier = g.resource
      left join custom_domains cd on cd.domain = r.custom_domain
      left join deployments d on d.id = coalesce(r.deployment_id, cd.deployment_id)
                             and (d.user_id = ${userId} or (d.user_id like 'org\_%' and exists (
                                   select 1 from member mb where mb.organization_id = substr(d.user_id, 5) and mb.user_id = ${userId})))
      left join oauth_grant_use u on u.user_id = ${userId} and u.client_id = g.client_id and u.resource = g.resource
     order by g.granted_at, g.client_id`);
  return r.rows.map((x) => ({
    clientId: x.client_id,
    resource: x.resource,
    clientName: x.client_name,
    redirectUris: x.redirect_uris ?? [],
    deploymentId: x.deployment_id,
    serverRef: x.server_ref,
    proxyId: x.proxy_id,
    grantedAt: new Date(x.granted_at),
    lastUsedAt: x.last_used_at === null ? null : new Date(x.last_used_at),
  }));
}

export async function findClient(db: Db, clientId: string) {
  const [c] = await db.select().from(oauthClient).where(eq(oauthClient.clientId, clientId));
  return c;
}

/** Access tokens that are expired or revoked, refresh tokens past their end, and clients never granted anything after a day. */
export async function pruneExpired(db: Db): Promise<void> {
  await db.delete(oauthAccessToken).where(sql`${oauthAccessToken.expiresAt} < now() - interval '1 day'`);
  await db.execute(sql`delete from oauth_refresh_token where expires_at < now() - interval '1 day'`);
  await db.execute(sql`delete from oauth_client_assertion where expires_at < now()`);
  await db.execute(sql`delete from oauth_client c where c.created_at < now() - interval '1 day'
    and not exists (select 1 from oauth_consent x where x.client_id = c.client_id)
    and not exists (select 1 from oauth_refresh_token x where x.client_id = c.client_id)
    and not exists (select 1 from oauth_access_token x where x.client_id = c.client_id)`);
}
