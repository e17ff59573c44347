// npm run admin -- grant <email> | revoke <email> | list
import { findUserByEmail } from "../features/auth/repo.js";
import { listAdmins, setAdmin } from "../features/profile/repo.js";
import { withCliDatabase } from "./database.js";

async function main(argv: string[]): Promise<number> {
  const [command, email] = argv;
  if (!command || !["grant", "revoke", "list"].includes(command) || (command !== "list" && !email)) {
    console.error("Usage: npm run admin -- grant <email> | revoke <email> | list");
    return 2;
  }
  return withCliDatabase(async ({ db }) => {
    if (command === "list") {
      const rows = await listAdmins(db);
      for (const r of rows) console.log(`${r.email} (${r.username})`);
      if (rows.length === 0) console.log("No admins.");
      return 0;
    }
    const u = await findUserByEmail(db, email!.trim());
    if (!u) {
      console.error(`No account with the e-mail address ${email}. The person must register first.`);
      return 1;
    }
    if (!(await setAdmin(db, u.id, command === "grant"))) {
      console.error(`${u.email} has no profile yet: they must sign in once first.`);
      return 1;
    }
    console.log(command === "grant" ? `${u.email} is now an admin.` : `${u.email} is no longer an admin.`);
    return 0;
  });
}

process.exitCode = await main(process.argv.slice(2));
