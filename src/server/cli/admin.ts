// npm run admin -- grant <email> | revoke <email> | list
import { eq, sql } from "drizzle-orm";
import path from "node:path";
import { loadConfig } from "../config.js";
import { connect, runMigrations } from "../db/client.js";
import { startEmbeddedPostgres } from "../db/embedded.js";
import { profiles, user } from "../db/schema.js";
import { projectRoot } from "../paths.js";

async function main(argv: string[]): Promise<number> {
  const [command, email] = argv;
  if (!command || !["grant", "revoke", "list"].includes(command) || (command !== "list" && !email)) {
    console.error("Usage: npm run admin -- grant <email> | revoke <email> | list");
    return 2;
  }
  const config = loadConfig();
  // Uses the same database as the app: DATABASE_URL, or the embedded one (reused if the app runs).
  const embedded = config.DATABASE_URL
    ? undefined
    : await startEmbeddedPostgres({ dataDir: path.resolve(projectRoot, config.DATA_DIR), port: config.EMBEDDED_PG_PORT });
  const database = connect(config.DATABASE_URL ?? embedded!.url, { max: 1 });
  try {
    await runMigrations(database.db);
    if (command === "list") {
      const rows = await database.db.select({ email: profiles.email, username: profiles.username }).from(profiles).where(eq(profiles.isAdmin, true));
      for (const r of rows) console.log(`${r.email} (${r.username})`);
      if (rows.length === 0) console.log("No admins.");
      return 0;
    }
    const [u] = await database.db.select({ id: user.id, email: user.email }).from(user).where(sql`lower(${user.email}) = lower(${email!.trim()})`);
    if (!u) {
      console.error(`No account with the e-mail address ${email}. The person must register first.`);
      return 1;
    }
    const updated = await database.db
      .update(profiles)
      .set({ isAdmin: command === "grant", updatedAt: new Date() })
      .where(eq(profiles.id, u.id))
      .returning({ id: profiles.id });
    if (updated.length === 0) {
      console.error(`${u.email} has no profile yet: they must sign in once first.`);
      return 1;
    }
    console.log(command === "grant" ? `${u.email} is now an admin.` : `${u.email} is no longer an admin.`);
    return 0;
  } finally {
    await database.close();
    if (embedded && !embedded.adopted) await embedded.stop();
  }
}

process.exitCode = await main(process.argv.slice(2));
