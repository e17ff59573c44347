import { checkArgs, fail, lex, lexText } from "../../command-lex.js";

// Container images as a deployment's source: the command a catalogue entry or its owner gives
// (`docker run -i [--rm] [-e NAME ...] [-p PORT] <image> [args]`, or the image reference alone) under a
// strict grammar. Nothing of docker's own options survives but stdin and cleanup: no mounts,
// networks, users, capabilities, devices or entrypoints; `-e` takes a key's name only, its value
// comes from the deployment's keys. The reference is read as the distribution spec defines it.

export const DOCKER_TEXT = {
  shape: 'A docker command must read "docker run -i [--rm] [-e NAME ...] [-p PORT] <image> [arguments]"',
  interactive:
    'The docker command must use -i: MCP servers in images speak over standard input ("docker run -i ..."), or name with -p the port one that speaks HTTP listens on',
  missingImage: "The docker command must name an image",
  invalidImage: (ref: string) => `Invalid image reference "${ref.slice(0, 200)}"`,
  envValue: (name: string) =>
    `Give -e only a key's name ("-e ${name.split("=")[0]!.slice(0, 100)}"): its value comes from the deployment's keys`,
  invalidEnv: (name: string) => `Invalid environment variable name "${name.slice(0, 100)}"`,
  port: (value: string) =>
    `Give -p the one port the server listens on inside its sandbox ("-p 8080"; "-p 8080:8080" reads the same), not "${value.slice(0, 100)}": it is never opened on the host`,
} as const;

/** The path an image that speaks streamable HTTP (`-p PORT`) serves MCP at. */
export const IMAGE_MCP_PATH = "/mcp";

export interface ImageRef {
  /** registry host (and port): docker.io when the reference names none */
  registry: string;
  /** repository path (library/<name> for Docker Hub's official images) */
  repository: string;
  tag: string | null;
  /** sha256:<64 hex> when pinned */
  digest: string | null;
}

const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:localhost|[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*)(?::[0-9]{1,5})?$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const DIGEST = /^sha256:[a-f0-9]{64}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** An image reference as the distribution spec reads it (`[registry/]path[:tag][@sha256:...]`), or null. */
export function parseImageRef(input: string): ImageRef | null {
  if (input.length > 255 * 2 || /[^A-Za-z0-9@:._/-]/.test(input)) return null;
  let rest = input;
  let digest: string | null = null;
  const at = rest.indexOf("@");
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return null;
  }
  let tag: string | null = null;
  const colon = rest.lastIndexOf(":");
  if (colon > rest.lastIndexOf("/")) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return null;
  }
  const parts = rest.split("/");
  let registry = "docker.io";
  // The first part is a registry when it looks like a host: a dot, a port, or localhost.
  if (parts.length > 1 && (parts[0]!.includes(".") || parts[0]!.includes(":") || parts[0] === "localhost")) {
    registry = parts.shift()!;
    if (!DOMAIN.test(registry)) return null;
    const port = registry.split(":")[1];
    if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return null;
  }
  if (parts.length === 0 || !parts.every((p) => COMPONENT.test(p))) return null;
  if (registry === "index.docker.io") registry = "docker.io";
  if (registry === "docker.io" && parts.length === 1) parts.unshift("library");
  const repository = parts.join("/");
  if (registry.length + 1 + repository.length > 255) return null;
  return { registry, repository, tag, digest };
}

/** The canonical form: `registry/repository[:tag][@digest]`, `:latest` when neither is given. */
export function imageName(r: ImageRef): string {
  const tag = r.tag ?? (r.digest ? null : "latest");
  return `${r.registry}/${r.repository}${tag ? `:${tag}` : ""}${r.digest ? `@${r.digest}` : ""}`;
}

/** Whether a command is an image reference alone (one token with a path, tag or digest that parses as one). */
export function isBareImage(command: string): boolean {
  const t = command.trim();
  return /^[^\s]+$/.test(t) && /[/:@]/.test(t) && !/^[a-z+]+:\/\//i.test(t) && parseImageRef(t) !== null;
}

export interface DockerCommand {
  image: string;
  args: string[];
  /** the key names `-e` passes */
  env: string[];
  /** `-p PORT`: the server speaks streamable HTTP at /mcp on this port inside its sandbox (else stdio) */
  port?: number;
}

/** `-p 8080` or `-p 8080:8080` (the same port twice): a port inside the sandbox, never one of the host's. */
function parsePort(value: string): number {
  const m = /^([0-9]{1,5})(?::([0-9]{1,5}))?(?:\/tcp)?$/.exec(value);
  const port = m ? Number(m[1]) : NaN;
  if (!m || port < 1 || port > 65535 || (m[2] !== undefined && Number(m[2]) !== port)) fail(DOCKER_TEXT.port(value));
  return port;
}

/** `docker run -i [--rm] [-e NAME ...] <image> [args]`, or the reference alone; refuses anything else in the user's words. */
export function parseDockerCommand(input: string): DockerCommand {
  const tokens = lex(input, "docker");
  if (tokens[0] !== "docker") {
    if (tokens.length !== 1) fail(DOCKER_TEXT.shape);
    const ref = parseImageRef(tokens[0]!);
    if (!ref) fail(DOCKER_TEXT.invalidImage(tokens[0]!));
    return { image: imageName(ref), args: [], env: [] };
  }
  if (tokens[1] !== "run") fail(DOCKER_TEXT.shape);
  let interactive = false;
  let port: number | undefined;
  const env: string[] = [];
  let i = 2;
  for (; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!t.startsWith("-")) break;
    if (t === "-i" || t === "--interactive") interactive = true;
    else if (t === "--rm") continue;
    else if (t === "-p" || t === "--publish" || t.startsWith("--publish=") || (t.startsWith("-p") && !t.startsWith("--"))) {
      const value = t === "-p" || t === "--publish" ? tokens[++i] : t.startsWith("--publish=") ? t.slice(10) : t.slice(2);
      if (value === undefined) fail(DOCKER_TEXT.missingImage);
      if (port !== undefined) fail(DOCKER_TEXT.port(value));
      port = parsePort(value);
    } else if (t === "-e" || t === "--env" || t.startsWith("--env=") || (t.startsWith("-e") && !t.startsWith("--"))) {
      const name = t === "-e" || t === "--env" ? tokens[++i] : t.startsWith("--env=") ? t.slice(6) : t.slice(2);
      if (name === undefined) fail(DOCKER_TEXT.missingImage);
      if (name.includes("=")) fail(DOCKER_TEXT.envValue(name));
      if (!ENV_NAME.test(name)) fail(DOCKER_TEXT.invalidEnv(name));
      if (!env.includes(name)) env.push(name);
    } else fail(lexText("docker").forbiddenOption(t.split("=")[0]!));
  }
  // A server that speaks HTTP (-p) needs no standard input; one that speaks stdio does.
  if (!interactive && port === undefined) fail(DOCKER_TEXT.interactive);
  const refText = tokens[i];
  if (refText === undefined) fail(DOCKER_TEXT.missingImage);
  const ref = parseImageRef(refText);
  if (!ref) fail(DOCKER_TEXT.invalidImage(refText));
  // After the image, everything is the server's own arguments (a server's options are its own).
  const args = checkArgs(tokens.slice(i + 1), "docker", () => undefined);
  return { image: imageName(ref), args, env, ...(port === undefined ? {} : { port }) };
}
