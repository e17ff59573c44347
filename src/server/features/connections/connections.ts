import { randomBytes, randomUUID } from "node:crypto";
import {
  CONNECTION_TEXT,
  connectionHeaders,
  headerOfKey,
  transportOf,
  type ConnectionInput,
  type ConnectionView,
} from "~/shared/connections.js";
import { DEPLOY_TEXT, missingKeys } from "~/shared/deployments.js";
import { API_KEY_TEXT } from "~/shared/publishers.js";
import { AppError } from "../../errors.js";
import { resolveUpstream, UpstreamRefused } from "../../net/upstream-fetch.js";
import type { Viewer } from "../auth/viewer.js";
import { findServer } from "../catalog/repo.js";
import { keyReaches } from "../api-keys/api-keys.js";
import { parseAllowList } from "../runtime/sandbox/cidr.js";
import type { Source } from "../runtime/runner.js";
import { listUserDeployments, reserveDeployment, RESTING, type DeploymentRow, type ServerRef } from "../deployments/kinds.js";
import { restartRow } from "../deployments/owner-actions.js";
import { ownedDeployment } from "../deployments/owner-actions.js";
import { deploymentView, isConnection, reachableRows, type DeploymentDeps } from "../deployments/service.js";
import { deployingOwner, orgViewOf, type OrgReach, type Reach } from "../orgs/accounts.js";
import { beginSignIn, finishSignIn, revokeGrant } from "./upstream-oauth.js";

// Connections (docs/product.md#connections): a remote MCP server reached through the gateway with
// the user's own headers. A connection is a deployment whose source is the remote URL, so its URL,
// keys, OAuth for clients, pinned definitions, tool selection, playground and request log are a
// deployment's; the runner holds a link to the server instead of a process. It runs none of the
// user's code: no plan's running or monthly limit counts it, CONNECTIONS_PER_USER bounds it.
// Made as an organisation (`owner`: its slug, by its admins, features/orgs/accounts.ts), its
// account holds it: every member reaches it with their own key, its headers are the organisation's.

type Remote = Extract<Source, { kind: "remote" }>;

export { isConnection };

export function connectionView(
  deps: Pick<DeploymentDeps, "config" | "box">,
  r: DeploymentRow,
  v?: Viewer,
  org: OrgReach | null = null,
): ConnectionView {
  const src = r.source as Remote;
  let names: string[] = [];
  try {
    names = Object.keys(deps.box.open(r.secrets)).sort();
  } catch {
    // sealed under another SECRETS_KEY: the names are lost with the values
  }
  return {
    ...deploymentView(deps.config, r, v, org),
    name: src.name,
    remote_url: src.url,
    transport: src.transport,
    header_names: names,
    entry: r.serverKind === "catalog" ? r.serverRef : null,
    auth: src.oauth ? "oauth" : "headers",
  };
}

/** A catalogue entry's remote, or a URL the user names: what to connect and which headers it needs. */
/** A name in use is about the form's name field (`{ field }`); an entry connected twice is about no field. */
const taken = (kind: ServerRef["kind"]) =>
  kind === "remote"
    ? new AppError("conflict", CONNECTION_TEXT.nameTaken, { field: "name" })
    : new AppError("conflict", CONNECTION_TEXT.alreadyConnected);

async function targetOf(
  deps: DeploymentDeps,
  input: ConnectionInput,
): Promise<{ server: ServerRef; source: Remote; headers: Record<string, string> }> {
  if (input.server_id) {
    const entry = await findServer(deps.db, input.server_id);
    if (!entry || !entry.isApproved) throw new AppError("not_found", DEPLOY_TEXT.serverNotFound);
    if (!entry.url || !URL.canParse(entry.url) || !/^https?:$/.test(new URL(entry.url).protocol))
      throw new AppError("validation_failed", CONNECTION_TEXT.notRemote);
    const required = entry.requiredKeys ?? [];
    const env = Object.fromEntries(Object.entries(input.env).filter(([, val]) => val.trim() !== ""));
    const missing = missingKeys(required, env);
    if (missing.length) throw new AppError("validation_failed", DEPLOY_TEXT.missingKeys(missing));
    // The entry's keys go as headers (X_API_KEY as X-API-KEY), with the rules every header obeys.
    const headers = connectionHeaders.safeParse({
      ...input.headers,
      ...Object.fromEntries(Object.entries(env).map(([k, val]) => [headerOfKey(k), val])),
    });
    if (!headers.success) throw new AppError("validation_failed", headers.error.issues[0]!.message);
    return {
      server: { kind: "catalog", ref: entry.id },
      source: {
        kind: "remote",
        url: entry.url,
        transport: transportOf(entry.url),
        name: entry.id,
        ...(input.oauth ? { oauth: true } : {}),
      },
      headers: headers.data,
    };
  }
  const { name, url } = input as { name: string; url: string };
  return {
    server: { kind: "remote", ref: name },
    source: { kind: "remote", url, transport: input.transport ?? transportOf(url), name, ...(input.oauth ? { oauth: true } : {}) },
    headers: input.headers,
  };
}

/** The connection asked for, checked: its target, the viewer's key may reach it, its address may be reached. */
async function checkedTarget(deps: DeploymentDeps, v: Viewer, input: ConnectionInput) {
  const target = await targetOf(deps, input);
  if (!keyReaches(v, target.server)) throw new AppError("forbidden", API_KEY_TEXT.notForThisServer);
  // Refused before anything is stored: a URL on an address no connection may reach says so now
  // (the runner checks again each time it connects: a name's address can change).
  try {
    await resolveUpstream(new URL(target.source.url), parseAllowList(deps.config.SANDBOX_EGRESS_ALLOW));
  } catch (e) {
    if (e instanceof UpstreamRefused) throw new AppError("validation_failed", e.message, { field: "url" });
    throw e;
  }
  return target;
}

/**
 * POST /api/connections. With `oauth`, nothing is stored yet but the sign-in under way: the answer
 * is the server's consent page, and the connection is made when the browser comes back
 * (finishConnection). A name taken or the limit reached is said now, before the user signs in.
 */
export async function connectOrSignIn(
  deps: DeploymentDeps,
  v: Viewer,
  input: ConnectionInput,
): Promise<{ connection: ConnectionView } | { authorize_url: string }> {
  if (!input.oauth) return { connection: await createConnection(deps, v, input) };
  const target = await checkedTarget(deps, v, input);
  const owner = await deployingOwner(deps.db, v, input.owner);
  const rows = (await listUserDeployments(deps.db, owner.id)).filter(isConnection);
  if (rows.some((r) => r.serverKind === target.server.kind && r.serverRef === target.server.ref && !RESTING.includes(r.status)))
    throw taken(target.server.kind);
  if (rows.length >= deps.config.CONNECTIONS_PER_USER)
    throw new AppError("plan_limit", CONNECTION_TEXT.tooMany(deps.config.CONNECTIONS_PER_USER));
  return { authorize_url: await beginSignIn(deps, v.id, { url: target.source.url, input }) };
}

/** Sign in to the server again (the grant was refused or revoked): the same connection, restarted with the new grant. */
export async function signInAgain(deps: DeploymentDeps, v: Viewer, id: string): Promise<{ authorize_url: string }> {
  const r = await ownConnection(deps, v, id);
  const src = r.source as Remote;
  if (!src.oauth) throw new AppError("validation_failed", CONNECTION_TEXT.notOAuth);
  return { authorize_url: await beginSignIn(deps, v.id, { url: src.url, connectionId: r.id }) };
}

/** The browser is back from the server's consent: the connection is made (or signed in again) with its grant. */
export async function finishConnection(
  deps: DeploymentDeps,
  v: Viewer,
  back: { state: string; code?: string; error?: string },
): Promise<ConnectionView> {
  const done = await finishSignIn(deps, v.id, back);
  if (done.connectionId) {
    const r = await ownConnection(deps, v, done.connectionId);
    return connectionView(deps, await restartRow(deps, v, r, { upstreamGrant: done.grant }), v, await orgViewOf(deps.db, v.id, r.userId));
  }
  if (!done.input) throw new AppError("validation_failed", CONNECTION_TEXT.signInExpired);
  return createConnection(deps, v, done.input, done.grant);
}

/** Makes the connection and starts it; `grant`: its sealed OAuth sign-in, for one made with `oauth`. */
export async function createConnection(deps: DeploymentDeps, v: Viewer, input: ConnectionInput, grant?: string): Promise<ConnectionView> {
  const target = await checkedTarget(deps, v, input);
  // Asked again when a sign-in comes back: a right lost meanwhile is not used.
  const owner = await deployingOwner(deps.db, v, input.owner);
  if (input.oauth && !grant) throw new AppError("validation_failed", CONNECTION_TEXT.signInExpired);
  const max = deps.config.CONNECTIONS_PER_USER;
  const result = await reserveDeployment(
    deps.db,
    { maxConnections: max },
    {
      id: randomUUID(),
      userId: owner.id,
      serverKind: target.server.kind,
      serverRef: target.server.ref,
      source: target.source,
      secrets: deps.box.seal(target.headers),
      upstreamGrant: grant ?? null,
      // used only at its first creation: after that it keeps the address it had
      proxyId: randomBytes(16).toString("hex"),
    },
    deps.resources,
  );
  if (!result.ok) {
    if (result.reason === "connection_limit") throw new AppError("plan_limit", CONNECTION_TEXT.tooMany(max));
    throw taken(target.server.kind);
  }
  if (result.replaced) await deps.lifecycle.stop(result.replaced, { keepRow: true });
  await deps.lifecycle.launch(result.row);
  return connectionView(deps, result.row, v, owner.org);
}

/** The viewer's connections and their organisations'. */
export async function listConnections(deps: DeploymentDeps, v: Viewer): Promise<ConnectionView[]> {
  return (await reachableRows(deps.db, v))
    .filter(({ row: r }) => isConnection(r) && keyReaches(v, { kind: r.serverKind as ServerRef["kind"], ref: r.serverRef }))
    .map(({ row, org }) => connectionView(deps, row, v, org));
}

/**
 * The viewer's connection (or their organisation's: `use` to see it, `manage` to change it), else
 * not found (another user's is never revealed, nor a deployment).
 */
export async function ownConnection(deps: DeploymentDeps, v: Viewer, id: string, reach: Reach = "manage"): Promise<DeploymentRow> {
  const r = await ownedDeployment(deps.db, v, id, reach, CONNECTION_TEXT.notFound);
  if (!isConnection(r)) throw new AppError("not_found", CONNECTION_TEXT.notFound);
  return r;
}

/** One connection as the viewer sees it (a member sees an organisation's). */
export async function viewConnection(deps: DeploymentDeps, v: Viewer, id: string): Promise<ConnectionView> {
  const r = await ownConnection(deps, v, id, "use");
  return connectionView(deps, r, v, await orgViewOf(deps.db, v.id, r.userId));
}

/**
 * Removes it: the link ends (the upstream session is closed), its OAuth tokens are revoked at the
 * server's authorization server where it offers that, and its sealed headers and grant go with the row.
 */
export async function deleteConnection(deps: DeploymentDeps, v: Viewer, id: string): Promise<void> {
  const r = await ownConnection(deps, v, id);
  await revokeGrant(deps, r.upstreamGrant);
  await deps.lifecycle.stop(r.id);
}

/** Account deletion: every connection's OAuth tokens are revoked upstream before the rows go. */
export async function revokeGrantsOf(deps: Pick<DeploymentDeps, "db" | "config" | "box">, userId: string): Promise<void> {
  for (const r of await listUserDeployments(deps.db, userId)) if (r.upstreamGrant) await revokeGrant(deps, r.upstreamGrant);
}

/**
 * New header values (a name given empty removes that header; headers not named stay), sealed,
 * and the connection reconnects with them: same URL, grants, pins, tool selection and request log.
 */
export async function updateConnectionHeaders(
  deps: DeploymentDeps,
  v: Viewer,
  id: string,
  headers: Record<string, string>,
): Promise<ConnectionView> {
  const r = await ownConnection(deps, v, id);
  let next: Record<string, string> = {};
  try {
    next = deps.box.open(r.secrets);
  } catch {
    // sealed under another SECRETS_KEY: the values given now are all it has
  }
  for (const [name, value] of Object.entries(headers)) {
    for (const k of Object.keys(next)) if (k.toLowerCase() === name.toLowerCase()) delete next[k];
    if (value.trim() !== "") next[name] = value.trim();
  }
  const checked = connectionHeaders.safeParse(next);
  if (!checked.success) throw new AppError("validation_failed", checked.error.issues[0]!.message);
  // A catalogue entry's remote still sends every key the entry asks for.
  if (r.serverKind === "catalog") {
    const entry = await findServer(deps.db, r.serverRef);
    const required = (entry?.requiredKeys ?? []).map((k) => ({ ...k, env_var: headerOfKey(k.env_var) }));
    const lower = Object.fromEntries(Object.entries(checked.data).map(([k, val]) => [k.toLowerCase(), val]));
    const missing = missingKeys(
      required.map((k) => ({ ...k, env_var: k.env_var.toLowerCase() })),
      lower,
    );
    if (missing.length) throw new AppError("validation_failed", DEPLOY_TEXT.missingKeys(missing));
  }
  const row = await restartRow(deps, v, r, { secrets: deps.box.seal(checked.data) });
  return connectionView(deps, row, v, await orgViewOf(deps.db, v.id, r.userId));
}
