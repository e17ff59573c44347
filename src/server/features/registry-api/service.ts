import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import { findByRegistryName, listByRegistryName } from "../catalog/registry-repo.js";
import { toServerResponse } from "./server-response.js";

const encodeCursor = (name: string) => Buffer.from(name, "utf8").toString("base64url");
function decodeCursor(c: string): string {
  const name = Buffer.from(c, "base64url").toString("utf8");
  if (!name || !name.includes("/")) throw new AppError("validation_failed", "Invalid cursor");
  return name;
}

export interface RegistryQuery {
  cursor?: string;
  limit: number;
  search?: string;
  updated_since?: string;
  version?: string;
}

export async function listRegistry(db: Db, q: RegistryQuery) {
  const updatedSince = q.updated_since ? new Date(q.updated_since) : undefined;
  if (updatedSince && Number.isNaN(updatedSince.getTime()))
    throw new AppError("validation_failed", "updated_since must be an RFC 3339 date-time");
  // Every entry here has a single version, which is its latest.
  const version = q.version && q.version !== "latest" ? q.version : undefined;
  const rows = await listByRegistryName(db, {
    after: q.cursor ? decodeCursor(q.cursor) : undefined,
    limit: q.limit + 1,
    search: q.search?.trim() || undefined,
    updatedSince,
    version,
  });
  const page = rows.slice(0, q.limit);
  const more = rows.length > q.limit;
  return {
    servers: page.map(toServerResponse),
    metadata: { count: page.length, ...(more ? { nextCursor: encodeCursor(page[page.length - 1]!.registryName!) } : {}) },
  };
}

async function one(db: Db, name: string) {
  const row = await findByRegistryName(db, name);
  if (!row) throw new AppError("not_found", "Server not found");
  return row;
}

export async function listVersions(db: Db, name: string) {
  const row = await one(db, name);
  return { servers: [toServerResponse(row)], metadata: { count: 1 } };
}

export async function getVersion(db: Db, name: string, version: string) {
  const row = await one(db, name);
  if (version !== "latest" && version !== (row.version ?? "1.0.0")) throw new AppError("not_found", "Server version not found");
  return toServerResponse(row);
}
