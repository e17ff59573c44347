import { lookup } from "node:dns/promises";
import net from "node:net";
import { AppError } from "../../../../errors.js";
import { isPrivateAddress } from "../../../../net/safe-fetch.js";

// Repository URLs end up as an argument to `git clone`. git understands many transports that can
// run commands (ext::, ssh with crafted hosts, --upload-pack) or read the server's own disk (file://),
// so only plain public https URLs in a narrow shape are accepted.

const MAX_LENGTH = 300;

export const GIT_TEXT = {
  empty: "The repository URL is empty",
  tooLong: `The repository URL may be at most ${MAX_LENGTH} characters`,
  option: 'The repository URL may not start with "-"',
  transport: 'The repository URL may not use a git transport helper such as "ext::"',
  ssh: "SSH repository URLs are not supported; use the https URL of the repository",
  gitProtocol: "git:// repository URLs are not supported; use the https URL of the repository",
  http: "The repository URL must use https, not http",
  file: "file:// repository URLs are not allowed",
  httpsOnly: "The repository URL must be an https URL such as https://github.com/owner/repo",
  credentials: "The repository URL may not contain a user name or password",
  queryOrFragment: "The repository URL may not contain a query string (?) or fragment (#)",
  host: "The repository host must be a public DNS name, not an IP address or a local name",
  port: "The repository URL has an invalid port",
  dotDot: 'The repository URL may not contain ".." or "." path segments',
  path: "The repository path may only contain letters, digits and the characters . _ ~ - between slashes",
  shortPath: "The repository URL must include the owner and repository, e.g. https://github.com/owner/repo",
  filePath: "A file:// repository URL must be an absolute path of letters, digits and . _ / - without ..",
  notPublic: "The repository host must be a public address",
  unresolvable: "The repository host could not be resolved",
} as const;

function fail(message: string): never {
  throw new AppError("validation_failed", message);
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// A letter-led top-level label keeps numeric hosts (127.1, 0x7f.1) out.
const TLD = /^[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const LOCAL_SUFFIXES = [".local", ".internal", ".localhost", ".localdomain", ".home.arpa"];

function checkHost(host: string): void {
  if (host.length > 253 || net.isIP(host.replace(/^\[|\]$/g, ""))) fail(GIT_TEXT.host);
  const labels = host.split(".");
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || !TLD.test(labels.at(-1)!)) fail(GIT_TEXT.host);
  if (host === "localhost" || LOCAL_SUFFIXES.some((s) => host.endsWith(s))) fail(GIT_TEXT.host);
}

function parseFileUrl(input: string): { url: string; kind: "file" } {
  const match = /^file:\/\/(\/[A-Za-z0-9._/-]*)$/.exec(input);
  if (!match || match[1]!.split("/").includes("..")) fail(GIT_TEXT.filePath);
  return { url: input, kind: "file" };
}

export function parseGitUrl(input: string, opts: { allowFile?: boolean } = {}): { url: string; kind: "https" | "file" } {
  const raw = input.trim();
  if (raw === "") fail(GIT_TEXT.empty);
  if (raw.length > MAX_LENGTH) fail(GIT_TEXT.tooLong);
  if (raw.startsWith("-")) fail(GIT_TEXT.option);
  if (/^[A-Za-z][A-Za-z0-9+.-]*::/.test(raw)) fail(GIT_TEXT.transport);

  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(raw)?.[1]?.toLowerCase();
  // scp-like `user@host:path` is ssh in git's eyes even without a scheme.
  if (scheme === undefined && /^[^/:]*@[^/:]*:/.test(raw)) fail(GIT_TEXT.ssh);
  if (scheme !== undefined && scheme.split("+").includes("ssh")) fail(GIT_TEXT.ssh);
  if (scheme === "git") fail(GIT_TEXT.gitProtocol);
  if (scheme === "http") fail(GIT_TEXT.http);
  if (scheme === "file") return opts.allowFile ? parseFileUrl(raw) : fail(GIT_TEXT.file);
  if (scheme !== "https") fail(GIT_TEXT.httpsOnly);

  const rest = raw.slice("https://".length);
  if (/[?#]/.test(rest)) fail(GIT_TEXT.queryOrFragment);
  const slash = rest.indexOf("/");
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const path = slash === -1 ? "" : rest.slice(slash + 1).replace(/\/$/, "");
  if (authority.includes("@")) fail(GIT_TEXT.credentials);

  const hostPort = /^([^:]*)(?::(\d{1,5}))?$/.exec(authority.toLowerCase());
  if (!hostPort) fail(authority.startsWith("[") ? GIT_TEXT.host : GIT_TEXT.port);
  const host = hostPort[1]!;
  const port = hostPort[2];
  checkHost(host);
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) fail(GIT_TEXT.port);

  const segments = path === "" ? [] : path.split("/");
  if (segments.some((s) => s === ".." || s === ".")) fail(GIT_TEXT.dotDot);
  if (!segments.every((s) => /^[A-Za-z0-9._~-]+$/.test(s))) fail(GIT_TEXT.path);
  if (segments.length < 2) fail(GIT_TEXT.shortPath);

  const authorityOut = port === undefined || Number(port) === 443 ? host : `${host}:${Number(port)}`;
  return { url: `https://${authorityOut}/${segments.join("/")}`, kind: "https" };
}

/** Resolves the host of a parsed https URL and refuses private, loopback and link-local targets. */
export async function assertPublicGitHost(url: string): Promise<void> {
  const parsed = new URL(url);
  if (parsed.protocol === "file:") return;
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = net.isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    fail(GIT_TEXT.unresolvable);
  }
  if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a))) fail(GIT_TEXT.notPublic);
}
