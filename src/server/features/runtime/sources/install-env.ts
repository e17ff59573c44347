import { existsSync } from "node:fs";
import path from "node:path";
import { SANDBOX_PATH } from "../sandbox/bwrap.js";

// The environments of installs and hosted processes: what of the operator's settings reaches them.

// The operator's network settings (proxy, extra CA roots, npm registry) reach npm in the
// platform's install sandbox (`npm install`, `npm view`), which runs no package code. No process
// on the host is given them (sandbox/host-process.ts).
const NETWORK_ENV =
  /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|GIT_SSL_CAINFO|https?_proxy|no_proxy|npm_config_(registry|strict_ssl|cafile|proxy|https_proxy|noproxy))$/i;

export function networkEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => NETWORK_ENV.test(e[0]) && e[1] !== undefined));
}

export function installEnv(): Record<string, string> {
  return { ...networkEnv(), PATH: SANDBOX_PATH, npm_config_fund: "false", npm_config_audit: "false" };
}

/** For code that runs sandboxed: only the extra CA roots, so TLS works behind an inspecting proxy. */
export function childNetworkEnv(): Record<string, string> {
  return process.env.NODE_EXTRA_CA_CERTS ? { NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS } : {};
}

/**
 * A repository's clone, install and build: the operator's registry (when it carries no
 * credentials) and CA roots, never the operator's proxy settings, which may hold a password and
 * which a repository's own scripts could read.
 */
export function tenantEnv(home: string): Record<string, string> {
  const registry = process.env.npm_config_registry;
  return {
    ...childNetworkEnv(),
    ...(registry && !/\/\/[^/]*@/.test(registry) ? { npm_config_registry: registry } : {}),
    PATH: SANDBOX_PATH,
    HOME: home,
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  };
}

/** Extra CA files the operator configured, bound read-only so TLS inside works as outside. */
export function caFiles(): string[] {
  return [process.env.NODE_EXTRA_CA_CERTS, process.env.SSL_CERT_FILE, process.env.npm_config_cafile].filter((f): f is string =>
    Boolean(f && path.isAbsolute(f) && existsSync(f)),
  );
}
