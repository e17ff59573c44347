import { DEPLOY_TEXT, type Deployability } from "../../../shared/deployments.js";
import { AppError } from "../../errors.js";
import { sourceFrom } from "../runtime/command.js";

// Whether a catalogue entry can run here, and if not why, so its page says so instead of offering
// a Deploy button that can only fail. A command that parses wins; then a server its publisher
// hosts; then packages this platform cannot run (container images, other registries); then a
// repository to build.

interface Entry {
  npxCommand: string | null;
  repositoryUrl: string | null;
  url: string | null;
  packages: unknown;
}

type Pkg = { registryType?: unknown; identifier?: unknown; transport?: { type?: unknown } };

const RUNNABLE = new Set(["npm", "pypi"]);

/** A publisher's URL that parses as http(s), as the client configurations will quote it. */
function remoteOf(url: string | null): Extract<Deployability, { kind: "remote" }> | null {
  if (!url || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) return null;
  return { kind: "remote", url, transport: /\/sse\/?$/.test(new URL(url).pathname) ? "sse" : "streamable-http" };
}

export function deployabilityOf(e: Entry, opts: { allowFileGit: boolean }): Deployability {
  if (e.npxCommand?.trim()) {
    try {
      const source = sourceFrom(e.npxCommand, e.repositoryUrl, opts);
      if (source) return { kind: "deployable", runtime: source.kind };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return { kind: "unsupported", reason: DEPLOY_TEXT.badCommand(err.message) };
    }
  }
  const packages = (Array.isArray(e.packages) ? e.packages : []).filter((p): p is Pkg => Boolean(p) && typeof p === "object");
  const remote = remoteOf(e.url);
  if (remote && !e.repositoryUrl) return remote;
  const foreign = packages.find((p) => typeof p.registryType === "string" && !RUNNABLE.has(p.registryType));
  if (foreign && !packages.some((p) => RUNNABLE.has(String(p.registryType)))) {
    const name = String(foreign.identifier ?? "").slice(0, 200);
    return { kind: "unsupported", reason: foreign.registryType === "oci" || foreign.registryType === "docker" ? DEPLOY_TEXT.dockerOnly(name) : DEPLOY_TEXT.otherPackage(String(foreign.registryType), name) };
  }
  if (e.repositoryUrl) {
    try {
      sourceFrom(null, e.repositoryUrl, opts);
      return { kind: "deployable", runtime: "git" };
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return { kind: "unsupported", reason: DEPLOY_TEXT.badCommand(err.message) };
    }
  }
  if (remote) return remote;
  return { kind: "unsupported", reason: DEPLOY_TEXT.needsSource };
}
