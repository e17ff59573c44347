// A remote catalogue entry's liveness check ('works here' for a server its publisher hosts): the
// MCP SDK's client connects through the guarded outbound fetch (public https, or what the operator
// allows; answers bounded), initializes, lists what it offers, and goes.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { resolveUpstream, upstreamFetch, UpstreamRefused } from "../../../net/upstream-fetch.js";
import { parseAllowList } from "../../runtime/sandbox/cidr.js";
import type { Capabilities } from "../definitions/listings.js";

export type ProbeResult = { ok: true; listing: Capabilities } | { ok: false; why: string; needsCredentials: boolean };

export interface ProbeOptions {
  allow: readonly string[];
  maxBodyBytes: number;
  timeoutMs: number;
  bytesPerSecond: number;
}

const clip = (s: string) => (s.length > 300 ? `${s.slice(0, 299)}…` : s);

export async function probeRemote(o: ProbeOptions, url: string, transport: "streamable-http" | "sse"): Promise<ProbeResult> {
  const target = new URL(url);
  let pinned;
  try {
    pinned = await resolveUpstream(target, o.allow);
  } catch (e) {
    return { ok: false, why: e instanceof UpstreamRefused ? e.message : String(e), needsCredentials: false };
  }
  const own = upstreamFetch({
    url: target,
    target: pinned,
    headers: {},
    maxBodyBytes: o.maxBodyBytes,
    headersTimeoutMs: o.timeoutMs,
    answerTimeoutMs: o.timeoutMs,
    bytesPerSecond: o.bytesPerSecond,
    keepAlive: false,
  });
  const client = new Client({ name: "switchboard-check", version: "1.0.0" });
  const t =
    transport === "sse"
      ? new SSEClientTransport(target, { fetch: own.fetch })
      : new StreamableHTTPClientTransport(target, { fetch: own.fetch });
  const opts = { timeout: o.timeoutMs };
  try {
    await client.connect(t, opts);
    const caps = client.getServerCapabilities() ?? {};
    const tools = caps.tools ? (await client.listTools(undefined, opts)).tools : [];
    const prompts = caps.prompts ? (await client.listPrompts(undefined, opts).catch(() => ({ prompts: [] }))).prompts : [];
    const resources = caps.resources
      ? (await client.listResourceTemplates(undefined, opts).catch(() => ({ resourceTemplates: [] }))).resourceTemplates
      : [];
    return { ok: true, listing: { tools, prompts, resources } };
  } catch (e) {
    const status = (e as { code?: unknown }).code;
    const message = String((e as Error).message ?? e);
    const needsCredentials = status === 401 || status === 403 || /\b(401|403)\b|unauthori[sz]ed/i.test(message);
    return { ok: false, why: clip(typeof status === "number" && status >= 300 ? `HTTP ${status}: ${message}` : message), needsCredentials };
  } finally {
    await client.close().catch(() => undefined);
    own.close();
  }
}

/** The probe as the platform configures it: what connections may reach, within their time limit. */
export function remoteProbe(config: {
  SANDBOX_EGRESS_ALLOW: string;
  CONNECTION_TIMEOUT_MS: number;
  DEPLOY_OUTPUT_BYTES_PER_SECOND: number;
}) {
  const o: ProbeOptions = {
    allow: parseAllowList(config.SANDBOX_EGRESS_ALLOW),
    maxBodyBytes: 4 * 1024 * 1024,
    timeoutMs: config.CONNECTION_TIMEOUT_MS,
    bytesPerSecond: config.DEPLOY_OUTPUT_BYTES_PER_SECOND,
  };
  return (url: string, transport: "streamable-http" | "sse") => probeRemote(o, url, transport);
}
