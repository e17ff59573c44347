import { z } from "zod";
import { schema } from "./config-schema.js";

// The configuration, read once at start-up: every bad variable is reported together, then the
// rules that span several variables (production, cluster roles) and the public URL's origins.

export type Config = Readonly<
  Omit<z.infer<typeof schema>, "PUBLIC_URL"> & {
    PUBLIC_URL: string;
    /** true when PUBLIC_URL was not set and was derived from PORT */
    publicUrlDerived: boolean;
    /** origins accepted on state-changing requests */
    allowedOrigins: readonly string[];
  }
>;

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map(
        (i) => `${i.path.join(".") || "(env)"}: ${i.message} (got ${JSON.stringify(env[String(i.path[0])] ?? null)})`,
      ),
    );
  }
  const c = parsed.data;
  if (c.GIT_ALLOW_FILE === "on" && c.NODE_ENV === "production") throw new ConfigError(["GIT_ALLOW_FILE: must be off in production"]);
  if (c.PYPI_INDEX_URL.startsWith("http:") && c.NODE_ENV === "production")
    throw new ConfigError(["PYPI_INDEX_URL: must be https in production"]);
  if (c.OAUTH_CIMD_ALLOW_HTTP_LOOPBACK === "on" && c.NODE_ENV === "production")
    throw new ConfigError(["OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: must be off in production"]);
  if (!c.ROLES.all) {
    const problems: string[] = [];
    if (!c.DATABASE_URL) problems.push("DATABASE_URL: must be set when ROLES is not all (every process of a cluster uses one PostgreSQL)");
    if (!c.CLUSTER_SECRET) problems.push("CLUSTER_SECRET: must be set when ROLES is not all (gateways authenticate to runners with it)");
    if (problems.length) throw new ConfigError(problems);
  }
  const derived = c.PUBLIC_URL === undefined;
  const publicUrl = (c.PUBLIC_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, "");
  const origins = new Set([new URL(publicUrl).origin]);
  if (derived) {
    for (const host of ["localhost", "127.0.0.1", "[::1]"]) origins.add(`http://${host}:${c.PORT}`);
  }
  return Object.freeze({ ...c, PUBLIC_URL: publicUrl, publicUrlDerived: derived, allowedOrigins: [...origins] });
}
