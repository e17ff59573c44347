// Migration 0014 (scoped API keys) on a database that has keys made before it: they keep working
// with every scope they had, marked as made before scopes; keys made after get the mcp scope only.
import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { hashKey, keyOwner, listApiKeys, newKey } from "../features/api-keys/api-keys.js";
import { keyRule } from "../features/api-keys/key-policy.js";
import { connect, migrationsFolder, type Database } from "./client.js";

const name = `${inject("pgPrefix")}mig_${randomBytes(4).toString("hex")}`;
let url = "";
let scratch = "";
let database: Database | undefined;

async function admin<T>(f: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: inject("pgAdminUrl") });
  await c.connect();
  try {
    return await f(c);
  } finally {
    await c.end();
  }
}

/** Applies the migrations up to and including `lastTag`, as a server of that version did. */
async function migrateTo(lastTag: string | null): Promise<void> {
  const folder = lastTag === null ? migrationsFolder : scratch;
  if (lastTag !== null) {
    await fs.cp(migrationsFolder, scratch, { recursive: true });
    const journalPath = path.join(scratch, "meta/_journal.json");
    const journal = JSON.parse(await fs.readFile(journalPath, "utf8")) as { entries: { tag: string }[] };
    const last = journal.entries.findIndex((e) => e.tag === lastTag);
    expect(last).toBeGreaterThan(0);
    journal.entries = journal.entries.slice(0, last + 1);
    await fs.writeFile(journalPath, JSON.stringify(journal));
  }
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    await migrate(drizzle(pool), { migrationsFolder: folder });
  } finally {
    await pool.end();
  }
}

beforeAll(async () => {
  await admin((c) => c.query(`create database "${name}"`));
  const u = new URL(inject("pgAdminUrl"));
  u.pathname = `/${name}`;
  url = u.toString();
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), "switchboard-migrations-"));
});
afterAll(async () => {
  await database?.close();
  await admin((c) => c.query(`drop database if exists "${name}" with (force)`));
  await fs.rm(scratch, { recursive: true, force: true });
});

describe("migration 0014: API keys get scopes", () => {
  const oldKey = newKey();
  it("gives a key made before it every scope it had, marked as made before scopes, and it keeps working", async () => {
    await migrateTo("0013_trusted_listings");
    // A user and a key as the previous version stored them (no scope columns yet).
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query(`insert into "user" (id, name, email, email_verified) values ('u1', 'Old Timer', 'old@example.com', true)`);
      await c.query(`insert into profiles (id, email, username, full_name) values ('u1', 'old@example.com', 'oldtimer', 'Old Timer')`);
      await c.query(`insert into api_keys (user_id, name, prefix, key_hash) values ('u1', 'laptop', $1, $2)`, [
        oldKey.slice(0, 11),
        hashKey(oldKey),
      ]);
      const cols = await c.query(`select column_name from information_schema.columns where table_name = 'api_keys'`);
      expect(cols.rows.map((r: { column_name: string }) => r.column_name)).not.toContain("scopes");
    } finally {
      await c.end();
    }

    await migrateTo(null);
    database = connect(url, { max: 2 });
    const owner = await keyOwner(database.db, oldKey);
    expect(owner).toMatchObject({
      id: "u1",
      viaApiKey: true,
      isAdmin: false,
      key: { scopes: ["mcp", "deploy", "servers"], resources: null, expiresAt: null },
    });
    // What it could do before, it can still do: the gateway and every REST route a key had.
    for (const [method, p] of [
      ["GET", "/api/deployments"],
      ["POST", "/api/deploy/owner/server"],
      ["POST", "/api/servers"],
      ["POST", "/api/mcp-servers"],
    ] as const) {
      const rule = keyRule(method, p);
      expect(rule === "public" || owner!.key.scopes.includes(rule), `${method} ${p}`).toBe(true);
    }
    const [listed] = await listApiKeys(database.db, {
      id: "u1",
      email: "old@example.com",
      emailVerified: true,
      username: "oldtimer",
      fullName: "Old Timer",
      isAdmin: false,
    });
    expect(listed).toMatchObject({ name: "laptop", scopes: ["mcp", "deploy", "servers"], legacy: true, resources: null, expiresAt: null });
  });

  it("a key made after it has the mcp scope unless it says otherwise", async () => {
    const { rows } = await database!.pool.query(
      `insert into api_keys (user_id, name, prefix, key_hash) values ('u1', 'new', 'sb_new', 'h') returning scopes, legacy`,
    );
    expect(rows[0]).toEqual({ scopes: ["mcp"], legacy: false });
  });
});
