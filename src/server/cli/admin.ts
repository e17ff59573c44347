// npm run admin -- grant <email> | revoke <email> | list
import { eq, sql } from "drizzle-orm";
import { profiles, user } from "../db/schema.js";
import { withCliDatabase } from "./database.js";

async function main(argv: string[]): Promise<number> {
  const [command, email] = argv;
  if (!command || !["grant", "revoke", "list"].includes(command) || (command !== "list" && !email)) {
    console.error("Usage: npm run admin -- grant <email> | revoke <email> | list");
    return 2;
  }
  return withCliDatabase(async (database) => {
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
  });
}

process.exitCode = await main(process.argv.slice(2));
