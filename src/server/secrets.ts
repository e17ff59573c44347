import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/** A secret from the environment, or one generated once into DATA_DIR (the embedded default). */
export async function loadOrCreateSecret(dataDir: string, name: string, fromEnv?: string): Promise<string> {
  if (fromEnv) return fromEnv;
  const file = path.join(dataDir, name);
  if (existsSync(file)) return (await fs.readFile(file, "utf8")).trim();
  await fs.mkdir(dataDir, { recursive: true });
  const secret = randomBytes(32).toString("base64url");
  await fs.writeFile(file, secret + "\n", { mode: 0o600, flag: "wx" }).catch(async (e: NodeJS.ErrnoException) => {
    if (e.code !== "EEXIST") throw e;
  });
  return (await fs.readFile(file, "utf8")).trim();
}
