// The operator's credentials for private container registries (IMAGE_REGISTRY_AUTH_FILE, in
// docker's config.json or containers' auth.json format). A pull is given one registry's entry
// and nothing else: a tenant who names an image on their own registry never makes skopeo send
// another registry's credentials there, and no tenant can bring credentials of their own.
import fs from "node:fs/promises";

const DOCKER_HUB = new Set(["docker.io", "index.docker.io", "registry-1.docker.io"]);

/** A key of `auths` as the registry host[:port] it names (docker's `https://index.docker.io/v1/` included), or null for a key with a repository path. */
function registryOfKey(key: string): string | null {
  const bare = key.replace(/^https?:\/\//i, "");
  const [host, ...rest] = bare.split("/");
  if (!host) return null;
  // docker writes Docker Hub as https://index.docker.io/v1/; a repository-scoped key is not read.
  const pathPart = rest.filter(Boolean).join("/");
  if (pathPart && pathPart !== "v1" && pathPart !== "v2") return null;
  const h = host.toLowerCase();
  return DOCKER_HUB.has(h) ? "docker.io" : h;
}

/** An auth file's text with only `registry`'s credentials (its `auth`, or its username and password), or null when it has none. */
export function authFileFor(text: string, registry: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const auths = (parsed as { auths?: unknown } | null)?.auths;
  if (!auths || typeof auths !== "object") return null;
  const want = DOCKER_HUB.has(registry.toLowerCase()) ? "docker.io" : registry.toLowerCase();
  for (const [key, entry] of Object.entries(auths as Record<string, unknown>)) {
    if (registryOfKey(key) !== want || !entry || typeof entry !== "object") continue;
    const e = entry as { auth?: unknown; username?: unknown; password?: unknown };
    const auth =
      typeof e.auth === "string" && e.auth
        ? e.auth
        : typeof e.username === "string" && typeof e.password === "string"
          ? Buffer.from(`${e.username}:${e.password}`).toString("base64")
          : null;
    if (auth) return JSON.stringify({ auths: { [want]: { auth } } });
  }
  return null;
}

/** The operator's file read now (an edit needs no restart); a file that is missing or unreadable gives no credentials. */
export async function registryAuth(file: string | null, registry: string): Promise<string | null> {
  if (!file) return null;
  const text = await fs.readFile(file, "utf8").catch(() => null);
  return text === null ? null : authFileFor(text, registry);
}
