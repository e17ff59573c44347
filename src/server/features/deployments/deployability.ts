import { DEPLOY_TEXT, type Deployability } from "~/shared/deployments.js";
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
    return {
      kind: "unsupported",
      reason:
        foreign.registryType === "oci" || foreign.registryType === "docker"
          ? DEPLOY_TEXT.dockerOnly(name)
          : DEPLOY_TEXT.otherPackage(String(foreign.registryType), name),
    };
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

/** What a reviewer sees before approving: what would run, how it speaks, and whether it can run here. */
export interface WhatRuns {
  /** the npx/uvx command, when the entry names one */
  command: string | null;
  /** the repository built when there is no command */
  repository: string | null;
  /** the publisher's URL when it is hosted there */
  remote: string | null;
  /** the transport its package or remote declares (stdio for a command without one) */
  transport: string | null;
  /** why it cannot run here, or null */
  reason: string | null;
}

export function whatRuns(e: Entry, opts: { allowFileGit: boolean }): WhatRuns {
  const can = deployabilityOf(e, opts);
  const packages = (Array.isArray(e.packages) ? e.packages : []).filter((p): p is Pkg => Boolean(p) && typeof p === "object");
  const declared = packages.map((p) => p.transport?.type).find((t): t is string => typeof t === "string");
  const command = e.npxCommand?.trim() || null;
  return {
    command,
    repository: can.kind === "deployable" && can.runtime === "git" ? e.repositoryUrl : null,
    remote: can.kind === "remote" ? can.url : null,
    transport: (declared?.slice(0, 40) ?? (can.kind === "remote" ? can.transport : can.kind === "deployable" ? "stdio" : null)) || null,
    reason: can.kind === "unsupported" ? can.reason : null,
  };
}
