import {
  API_KEY_TEXT,
  SERVER_FORM_TEXT,
  requiredKeysFromConnections,
  serverInput,
  type Connection,
  type OwnedServerView,
} from "~/shared/publishers.js";
import type { z } from "zod";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Viewer } from "../auth/viewer.js";
import { keyReaches } from "../api-keys/api-keys.js";
import { findOwnedServer, insertOwnedServer, listOwnedServers, updateOwnedServer, type OwnedServerWithOwner } from "./repo.js";

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
    owner: { id: r.ownerId, username: r.ownerUsername },
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

/** The viewer's servers; a key limited to some servers sees those only. */
export async function listMyServers(db: Db, viewer: Viewer): Promise<OwnedServerView[]> {
  return (await listOwnedServers(db, viewer.id))
    .filter((r) => keyReaches(viewer, { kind: "owned", ref: r.qualifiedName }))
    .map(ownedServerView);
}

/** For editing: the owner only (others 403, unknown 404), and with a key, one of the servers it names. */
export async function getMyServer(db: Db, viewer: Viewer, qualifiedName: string): Promise<OwnedServerView> {
  const r = await findOwnedServer(db, qualifiedName);
  if (!r) throw new AppError("not_found", SERVER_FORM_TEXT.loadFailed);
  if (r.ownerId !== viewer.id) throw new AppError("forbidden", SERVER_FORM_TEXT.notOwner);
  if (!keyReaches(viewer, { kind: "owned", ref: r.qualifiedName })) throw new AppError("forbidden", API_KEY_TEXT.notForThisServer);
  return ownedServerView(r);
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

export async function registerServer(db: Db, v: Viewer, s: ServerData): Promise<OwnedServerView> {
  const owner = s.qualifiedName.split("/")[0]!;
  if (owner !== v.username) throw new AppError("validation_failed", SERVER_FORM_TEXT.notYourName(v.username));
  // A key limited to some servers cannot add another one.
  if (!keyReaches(v, { kind: "owned", ref: s.qualifiedName })) throw new AppError("forbidden", API_KEY_TEXT.notForThisServer);
  const row = await insertOwnedServer(db, { qualifiedName: s.qualifiedName, ownerId: v.id, ...columns(s) });
  if (!row) throw new AppError("conflict", SERVER_FORM_TEXT.duplicate);
  return ownedServerView({ ...row, ownerUsername: v.username });
}

/** The qualified name never changes; a body naming another one is refused. */
export async function saveServer(db: Db, viewer: Viewer, qualifiedName: string, s: ServerData): Promise<OwnedServerView> {
  const current = await getMyServer(db, viewer, qualifiedName);
  if (s.qualifiedName !== current.qualifiedName) throw new AppError("validation_failed", "The qualified name cannot be changed");
  const row = await updateOwnedServer(db, current.qualifiedName, current.owner.id, columns(s));
  if (!row) throw new AppError("not_found", SERVER_FORM_TEXT.loadFailed);
  return ownedServerView({ ...row, ownerUsername: current.owner.username });
}
