import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { CUSTOM_ORIGIN, type CustomMarked } from "./admission/access.js";
import { METADATA_PREFIX, type ResourceMetadata } from "./resource-metadata.js";
import { GATEWAY_TEXT } from "./text.js";
import { rpcError } from "./wire/http.js";

// A request to a host that is not the site's (features/domains decides what it is). A verified
// custom domain serves its deployment's endpoints and their OAuth metadata, and nothing else:
// never the web app, whose cookies would then belong to a host its owner controls; nor does any
// other domain name. An address or a single label (a probe, a local name) goes on as before.

/** Where a custom domain leads (features/domains `Domains.route`). */
export interface CustomDomains {
  /** null: an address or a single label; status "none": a domain name that is nobody's custom domain */
  route(host: string): Promise<{ proxyId: string; status: string; origin: string } | null>;
}

/** What a custom domain serves: the deployment's endpoints, at / or under its proxy id (as legacy SSE's endpoint event names them). */
const CUSTOM_ROUTE = /^\/(?:([0-9a-f]{32})\/)?(mcp|sse|messages)\/?$/;
/** the site's gateway paths: a deployment's endpoints and metadata under its proxy id */
const SITE_GATEWAY = /^\/([0-9a-f]{32}\/|\.well-known\/oauth-protected-resource\/)/;

export async function serveCustomDomain(
  d: {
    domains: CustomDomains;
    metadata: Pick<ResourceMetadata, "handleCustom">;
    /** the gateway's own routing of an endpoint request */
    handle(req: IncomingMessage, res: ServerResponse, proxyId: string, kind: string, query: string): Promise<unknown>;
  },
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
  next: RequestListener,
): Promise<void> {
  const route = await d.domains.route(host);
  if (!route) return void next(req, res);
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const path = q < 0 ? url : url.slice(0, q);
  // A domain name that is nobody's custom domain (one removed, say: the TLS proxy may still hold
  // its certificate): the gateway's own paths refuse its Host as ever; nothing else is served.
  if (route.status === "none") return SITE_GATEWAY.test(path) ? void next(req, res) : rpcError(res, 404, GATEWAY_TEXT.notFound);
  const m = CUSTOM_ROUTE.exec(path);
  if (route.status !== "verified" || (m?.[1] !== undefined && m[1] !== route.proxyId)) return rpcError(res, 404, GATEWAY_TEXT.notFound);
  if (path === `${METADATA_PREFIX}mcp`) return d.metadata.handleCustom(req, res, route.proxyId, route.origin);
  if (!m) return rpcError(res, 404, GATEWAY_TEXT.notFound);
  (req as CustomMarked)[CUSTOM_ORIGIN] = route.origin;
  // As if it came to the site's own URL, which a runner's gateway and the request log know.
  req.url = `/${route.proxyId}/${m[2]}${q < 0 ? "" : url.slice(q)}`;
  await d.handle(req, res, route.proxyId, m[2]!, q < 0 ? "" : url.slice(q + 1));
}
