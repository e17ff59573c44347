import { createRoute, z } from "@hono/zod-openapi";
import { domainInput, domainsPage, domainView } from "~/shared/domains.js";
import { apiRouter, jsonError } from "../../http/openapi.js";
import { bearer, idParams, viewerOf } from "../deployments/route-parts.js";
import type { Domains } from "./service.js";

// A deployment's (or a toolset's: the same id) custom domains, and the TLS proxy's question.

const id = idParams.shape.id;
const domain = z.string().min(1).max(300);
const notYours = jsonError("No such deployment of yours, or no such domain on it");

function routesUnder(base: "deployments" | "toolsets") {
  const tags = [base];
  return {
    list: createRoute({
      method: "get",
      path: `/${base}/{id}/domains`,
      tags,
      summary: "Its custom domains, each with the TXT record that proves it and its status (Free owners see plan: free)",
      security: bearer,
      request: { params: z.object({ id }) },
      responses: {
        200: { content: { "application/json": { schema: domainsPage } }, description: "Domains" },
        401: jsonError("Not signed in"),
        404: notYours,
      },
    }),
    add: createRoute({
      method: "post",
      path: `/${base}/{id}/domains`,
      tags,
      summary: "Add a custom domain (Pro): answers the TXT record _switchboard-challenge.<domain> to publish, then verify",
      security: bearer,
      request: { params: z.object({ id }), body: { required: true, content: { "application/json": { schema: domainInput } } } },
      responses: {
        201: { content: { "application/json": { schema: domainView } }, description: "Added, pending its TXT record" },
        400: jsonError("Not a domain name, or one of this site's"),
        401: jsonError("Not signed in"),
        403: jsonError("Custom domains are part of the Pro plan"),
        404: notYours,
        409: jsonError("Used by a deployment already (any user's), or this one has the most it may have"),
      },
    }),
    verify: createRoute({
      method: "post",
      path: `/${base}/{id}/domains/{domain}/verify`,
      tags,
      summary: "Read the domain's TXT record now: verified, it routes to the deployment",
      security: bearer,
      request: { params: z.object({ id, domain }) },
      responses: {
        200: { content: { "application/json": { schema: domainView } }, description: "Verified" },
        401: jsonError("Not signed in"),
        403: jsonError("Custom domains are part of the Pro plan"),
        404: notYours,
        409: jsonError("No TXT record with its value yet"),
        503: jsonError("The DNS lookup failed"),
      },
    }),
    remove: createRoute({
      method: "delete",
      path: `/${base}/{id}/domains/{domain}`,
      tags,
      summary: "Remove a custom domain: it stops routing, and OAuth tokens for its URL go",
      security: bearer,
      request: { params: z.object({ id, domain }) },
      responses: { 204: { description: "Removed" }, 401: jsonError("Not signed in"), 404: notYours },
    }),
  };
}

const allowedRoute = createRoute({
  method: "get",
  path: "/custom-domains/allowed",
  tags: ["deployments"],
  summary:
    "For a TLS proxy's on-demand certificates (Caddy's on_demand_tls ask): 200 for this site's host or a verified custom domain, else 404",
  request: { query: z.object({ domain: z.string().max(300) }) },
  responses: { 200: { description: "Allowed" }, 404: { description: "Not a domain this site serves" } },
});

export function domainRoutes(domains: Domains) {
  const api = apiRouter().openapi(allowedRoute, async (c) =>
    (await domains.allowed(c.req.valid("query").domain.trim().toLowerCase().replace(/\.$/, ""))) ? c.body(null, 200) : c.body(null, 404),
  );
  for (const base of ["deployments", "toolsets"] as const) {
    const r = routesUnder(base);
    api
      .openapi(r.list, async (c) => c.json(await domains.page(viewerOf(c), c.req.valid("param").id), 200))
      .openapi(r.add, async (c) => c.json(await domains.add(viewerOf(c), c.req.valid("param").id, c.req.valid("json").domain), 201))
      .openapi(r.verify, async (c) => {
        const p = c.req.valid("param");
        return c.json(await domains.verify(viewerOf(c), p.id, p.domain), 200);
      })
      .openapi(r.remove, async (c) => {
        const p = c.req.valid("param");
        await domains.remove(viewerOf(c), p.id, p.domain);
        return c.body(null, 204);
      });
  }
  return api;
}
