import {
  API_KEY_TEXT,
  SERVER_FORM_TEXT,
  requiredKeysFromConnections,
  serverInput,
  type Connection,
  type MyServerView,
  type OwnedServerView,
} from "~/shared/publishers.js";
import type { z } from "zod";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import { keyReaches } from "../api-keys/api-keys.js";
import { ensureOrgAccount, membershipOf, orgOfAccount, orgsReached, reaches } from "../orgs/accounts.js";
import {
  findOwnedServer,
  insertOwnedServer,
  listOwnedServers,
  updateOwnedServer,
  userHasServer,
  type OwnedServerWithOwner,
} from "./repo.js";
import type { KeyServers } from "../api-keys/api-keys.js";

type ServerData = z.output<typeof serverInput>;

export function ownedServerView(r: OwnedServerWithOwner): OwnedServerView {
  const connections = r.connections as Connection[];
  return {
    qualifiedName: r.qualifiedName,
    displayName: r.displayName,
    description: r.description,
    version: r.version,
    homepage: r.homepage,
    repositoryUrl: r.repositoryUrl,
    keywords: r.keywords,
    documentation: r.documentation,
    connections: connections.map((c) => ({ type: c.type, url: c.url, configSchema: c.configSchema ?? {} })),
    owner: { id: r.ownerId, username: r.ownerUsername, org: r.ownerOrg },
    required_keys: requiredKeysFromConnections(connections),
    useCount: r.useCount,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/** The server page: anyone may look at an owned server. */
export async function getPublicOwnedServer(db: Db, qualifiedName: string): Promise<OwnedServerView | null> {
  const r = await findOwnedServer(db, qualifiedName);
  return r ? ownedServerView(r) : null;
}

/**
 * The viewer's servers and their organisations' (marked with the organisation); a key limited to
 * some servers sees those only.
 */
export async function listMyServers(db: Db, viewer: Viewer): Promise<MyServerView[]> {
  const orgs = await orgsReached(db, viewer.id);
  return (await listOwnedServers(db, [viewer.id, ...orgs.keys()]))
    .filter((r) => keyReaches(viewer, { kind: "owned", ref: r.qualifiedName }))
    .map((r) => ({ ...ownedServerView(r), manage: r.ownerId === viewer.id || (orgs.get(r.ownerId)?.manage ?? false) }));
}

/**
 * For editing: its owner, or for an organisation's server those who may change what it owns
 * (others 403, unknown 404), and with a key, one of the servers it names.
 */
export async function getMyServer(db: Db, viewer: Viewer, qualifiedName: string): Promise<OwnedServerView> {
  const r = await findOwnedServer(db, qualifiedName);
  if (!r) throw new AppError("not_found", SERVER_FORM_TEXT.loadFailed);
  if (!(await reaches(db, viewer.id, r.ownerId, "manage")))
    throw new AppError(
      "forbidden",
      r.ownerOrg && (await reaches(db, viewer.id, r.ownerId, "use"))
        ? SERVER_FORM_TEXT.orgNotAllowed(r.ownerOrg.name)
        : SERVER_FORM_TEXT.notOwner,
    );
  if (!keyReaches(viewer, { kind: "owned", ref: r.qualifiedName })) throw new AppError("forbidden", API_KEY_TEXT.notForThisServer);
  return ownedServerView(r);
}

/** Whether the viewer may change a server `ownerId` holds (its page's Edit link and Deploy). */
export const managesServer = (db: Db, viewer: { id: string } | null | undefined, ownerId: string) =>
  viewer ? reaches(db, viewer.id, ownerId, "manage") : Promise.resolve(false);

/** Whether the viewer may use it: its owner, or a member of the organisation that owns it. */
export const usesServer = (db: Db, viewer: { id: string } | null | undefined, ownerId: string) =>
  viewer ? reaches(db, viewer.id, ownerId, "use") : Promise.resolve(false);

/**
 * Whose a new server named `owner/...` is: the viewer's when the owner part is their username; an
 * organisation's when it is the slug of one they may change things for. Anything else is refused
 * with the spec's sentence (an organisation the viewer is not in is not revealed).
 */
async function registeringOwner(db: Db, v: Viewer, ownerPart: string): Promise<{ id: string; org: { slug: string; name: string } | null }> {
  if (ownerPart === v.username) return { id: v.id, org: null };
  // Slugs are lower case: `ACME/x` is not Acme's name.
  const m = ownerPart === ownerPart.toLowerCase() ? await membershipOf(db, v.id, ownerPart) : null;
  if (!m) throw new AppError("validation_failed", SERVER_FORM_TEXT.notYourName(v.username));
  if (!m.reach.manage) throw new AppError("forbidden", SERVER_FORM_TEXT.orgNotAllowed(m.org.name));
  return { id: await ensureOrgAccount(db, m.org), org: { slug: m.org.slug, name: m.org.name } };
}

const columns = (s: ServerData) => ({
  displayName: s.displayName,
  description: s.description,
  version: s.version,
  homepage: s.homepage ?? null,
  repositoryUrl: s.repositoryUrl ?? null,
  keywords: s.keywords,
  documentation: s.documentation?.trim() ? s.documentation : null,
  connections: s.connections,
});

export async function registerServer(db: Db, v: Viewer, s: ServerData): Promise<{ view: OwnedServerView; orgId?: string }> {
  // A key limited to some servers cannot add another one.
  if (!keyReaches(v, { kind: "owned", ref: s.qualifiedName })) throw new AppError("forbidden", API_KEY_TEXT.notForThisServer);
  const owner = await registeringOwner(db, v, s.qualifiedName.split("/")[0]!);
  const row = await insertOwnedServer(db, { qualifiedName: s.qualifiedName, ownerId: owner.id, ...columns(s) });
  if (!row) throw new AppError("conflict", SERVER_FORM_TEXT.duplicate);
  const view = ownedServerView({ ...row, ownerUsername: owner.org?.slug ?? v.username, ownerOrg: owner.org });
  return { view, orgId: orgOfAccount(owner.id) };
}

/** The qualified name never changes; a body naming another one is refused. */
export async function saveServer(
  db: Db,
  viewer: Viewer,
  qualifiedName: string,
  s: ServerData,
): Promise<{ view: OwnedServerView; orgId?: string }> {
  const current = await getMyServer(db, viewer, qualifiedName);
  if (s.qualifiedName !== current.qualifiedName) throw new AppError("validation_failed", "The qualified name cannot be changed");
  const row = await updateOwnedServer(db, current.qualifiedName, current.owner.id, columns(s));
  if (!row) throw new AppError("not_found", SERVER_FORM_TEXT.loadFailed);
  const view = ownedServerView({ ...row, ownerUsername: current.owner.username, ownerOrg: current.owner.org });
  return { view, orgId: orgOfAccount(current.owner.id) };
}

/**
 * The servers a key may be limited to, for api-keys' port (the platform adds catalogue entries): a
 * registered server the person may use, and connections and toolsets by name of theirs or of an
 * organisation they are in.
 */
export function usableServers(db: Db): Pick<KeyServers, "ownedServer" | "userHas"> {
  return {
    ownedServer: async (name, userId) => {
      const owned = await findOwnedServer(db, name);
      return owned && (await reaches(db, userId, owned.ownerId, "use")) ? owned : undefined;
    },
    userHas: async (userId, kind, name) => userHasServer(db, [userId, ...(await orgsReached(db, userId)).keys()], kind, name),
  };
}
