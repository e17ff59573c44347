import { randomBytes } from "node:crypto";
import {
  CHALLENGE_PREFIX,
  DOMAIN_TEXT,
  MAX_DOMAINS_PER_DEPLOYMENT,
  normalDomain,
  type DomainsPage,
  type DomainView,
} from "~/shared/domains.js";
import { claimRun } from "../../cluster/jobs.js";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { AppError } from "../../errors.js";
import type { Logger } from "../../log.js";
import type { Viewer } from "../auth/viewer.js";
import { ownedDeployment } from "../deployments/owner-actions.js";
import type { TxtLookup } from "./dns.js";
import {
  addDomain,
  deleteStalePending,
  domainsOf,
  dueForCheck,
  recordCheck,
  removeDomain,
  routeOf,
  suspendUnlessOwnedBy,
  type DomainRow,
} from "./repo.js";
import { customOrigin, customResourceUrl, domainOfHost } from "./resolve.js";

// Custom domains (Pro; docs/operations.md#custom-domains). The owner adds a domain and publishes
// the TXT record _switchboard-challenge.<domain> = the token shown; Verify reads it through
// CUSTOM_DOMAIN_RESOLVERS. A verified domain routes to the deployment's gateway endpoint
// (features/gateway reads `route`). Every CUSTOM_DOMAIN_CHECK_MS one process reads every record
// again: a verified domain whose record is gone past CUSTOM_DOMAIN_GRACE_MS is suspended.

export const DOMAINS_JOB = "custom-domains";
/** a process looks a Host up again after this long (a removed or suspended domain stops routing within it) */
const ROUTE_TTL_MS = 5_000;
const ROUTE_CACHE_MAX = 10_000;
/** a claim never proved is dropped after this many days */
const PENDING_DAYS = 3;

export interface DomainsDeps {
  db: Db;
  log: Logger;
  config: Pick<Config, "PUBLIC_URL" | "allowedOrigins" | "CUSTOM_DOMAIN_CHECK_MS" | "CUSTOM_DOMAIN_GRACE_MS">;
  txt: TxtLookup;
  isPro(userId: string): Promise<boolean>;
  /** the users on Pro now (billing/plan.ts proUserIds) */
  proUsers(): Promise<string[]>;
  /** ends the OAuth grants of a custom domain's resource URL (oauth/custom-resources.ts, wired by the assembly) */
  forgetResource(identifier: string): Promise<void>;
}

export type DomainRoute = { proxyId: string; status: DomainRow["status"] | "none"; origin: string };
/** A well-formed domain that is nobody's custom domain: it serves nothing here (see `route`). */
const NOT_CUSTOM: DomainRoute = { proxyId: "", status: "none", origin: "" };

export class Domains {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<{ checked: number; suspended: number; verified: number }> | undefined;
  private readonly routes = new Map<string, { route: DomainRoute | null; at: number }>();
  /** the site's own hosts: never a custom domain */
  private readonly reserved: Set<string>;

  constructor(private readonly d: DomainsDeps) {
    this.reserved = new Set([d.config.PUBLIC_URL, ...d.config.allowedOrigins].map((o) => new URL(o).hostname.toLowerCase()));
  }

  start(): void {
    this.timer ??= setInterval(() => void this.tick(), Math.min(this.d.config.CUSTOM_DOMAIN_CHECK_MS, 60_000)).unref();
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (this.sweeping) return;
    try {
      if (await claimRun(this.d.db, DOMAINS_JOB, Math.min(this.d.config.CUSTOM_DOMAIN_CHECK_MS, 60_000))) await this.sweep();
    } catch (e) {
      this.d.log.error({ err: e }, "custom domains check failed");
    }
  }

  /**
   * One check, now (one at a time in this process): domains of owners no longer on Pro stop
   * routing, claims never proved go, and every Pro owner's domain due (never checked, or not for
   * `everyMs`) has its TXT record read. A lookup that fails changes nothing but its turn.
   */
  sweep(everyMs = this.d.config.CUSTOM_DOMAIN_CHECK_MS): Promise<{ checked: number; suspended: number; verified: number }> {
    this.sweeping ??= this.sweepOnce(everyMs).finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(everyMs: number): Promise<{ checked: number; suspended: number; verified: number }> {
    const pro = await this.d.proUsers();
    let suspended = await suspendUnlessOwnedBy(this.d.db, pro);
    let verified = 0;
    await deleteStalePending(this.d.db, PENDING_DAYS);
    const due = await dueForCheck(this.d.db, pro, everyMs);
    for (const row of due) {
      const after = await recordCheck(this.d.db, row, await this.lookup(row), this.d.config.CUSTOM_DOMAIN_GRACE_MS);
      if (after?.status === "suspended" && row.status !== "suspended") {
        suspended++;
        this.d.log.warn({ domain: row.domain }, "custom domain suspended: its TXT record is gone");
      }
      if (after?.status === "verified" && row.status !== "verified") verified++;
    }
    this.routes.clear();
    return { checked: due.length, suspended, verified };
  }

  /** GET /api/deployments/{id}/domains */
  async page(viewer: Viewer, id: string): Promise<DomainsPage> {
    const dep = await ownedDeployment(this.d.db, viewer, id);
    // The deployment's owner's plan: an organisation's own for its deployments.
    const [pro, rows] = await Promise.all([this.d.isPro(dep.userId), domainsOf(this.d.db, dep.id)]);
    return {
      plan: pro ? "pro" : "free",
      max: MAX_DOMAINS_PER_DEPLOYMENT,
      host: new URL(this.d.config.PUBLIC_URL).hostname,
      domains: rows.map((r) => this.view(r)),
    };
  }

  /** POST /api/deployments/{id}/domains (Pro): pending until its TXT record is seen. */
  async add(viewer: Viewer, id: string, domain: string): Promise<DomainView> {
    const dep = await ownedDeployment(this.d.db, viewer, id);
    if (!(await this.d.isPro(dep.userId))) throw new AppError("forbidden", DOMAIN_TEXT.proOnly);
    if ([...this.reserved].some((h) => domain === h || domain.endsWith(`.${h}`)))
      throw new AppError("validation_failed", DOMAIN_TEXT.reserved);
    const token = `switchboard-verify=${randomBytes(18).toString("base64url")}`;
    const added = await addDomain(this.d.db, { domain, deploymentId: dep.id, token }, MAX_DOMAINS_PER_DEPLOYMENT);
    if (added === "taken") throw new AppError("conflict", DOMAIN_TEXT.taken);
    if (added === "too_many") throw new AppError("conflict", DOMAIN_TEXT.tooMany(MAX_DOMAINS_PER_DEPLOYMENT));
    if (added === "gone") throw new AppError("not_found", DOMAIN_TEXT.notFound);
    // Whatever tokens an earlier holder of this URL was given, none opens it now.
    await this.d.forgetResource(customResourceUrl(this.d.config.PUBLIC_URL, domain));
    this.routes.delete(domain);
    return this.view((await domainsOf(this.d.db, dep.id)).find((r) => r.domain === domain)!);
  }

  /** POST /api/deployments/{id}/domains/{domain}/verify (Pro): reads its TXT record now. */
  async verify(viewer: Viewer, id: string, domain: string): Promise<DomainView> {
    const row = await this.own(viewer, id, domain);
    if (!(await this.d.isPro(row.ownerId))) throw new AppError("forbidden", DOMAIN_TEXT.proOnly);
    const found = await this.lookup(row);
    if (found === "failed") throw new AppError("unavailable", DOMAIN_TEXT.dnsFailed);
    const after = await recordCheck(this.d.db, row, found, this.d.config.CUSTOM_DOMAIN_GRACE_MS);
    this.routes.delete(row.domain);
    if (!found || !after) throw new AppError("conflict", DOMAIN_TEXT.notYet(`${CHALLENGE_PREFIX}.${row.domain}`));
    return this.view(after);
  }

  /** DELETE /api/deployments/{id}/domains/{domain}: it stops routing, and its tokens go. */
  async remove(viewer: Viewer, id: string, domain: string): Promise<void> {
    const row = await this.own(viewer, id, domain);
    if (!(await removeDomain(this.d.db, row.deploymentId, row.domain))) throw new AppError("not_found", DOMAIN_TEXT.notFound);
    await this.d.forgetResource(customResourceUrl(this.d.config.PUBLIC_URL, row.domain));
    this.routes.delete(row.domain);
  }

  /** GET /api/custom-domains/allowed (the TLS proxy's question): this site's own host, or a verified domain. */
  async allowed(domain: string): Promise<boolean> {
    if (this.reserved.has(domain)) return true;
    const r = await routeOf(this.d.db, domain);
    return r?.status === "verified";
  }

  /**
   * Where a request with this Host goes, when the Host is not one of the site's: a custom
   * domain's deployment (whatever its status; the gateway serves only verified ones), status
   * "none" for a domain name that is nobody's (it serves nothing: it may be one removed, whose
   * certificate the TLS proxy still holds), or null for an address or a single label.
   */
  async route(host: string): Promise<DomainRoute | null> {
    const domain = domainOfHost(this.d.config.PUBLIC_URL, host);
    // An address, a single label (a probe's, a local name) or a site's own host is never one.
    if (!domain || normalDomain(domain) !== domain || this.reserved.has(domain)) return null;
    const hit = this.routes.get(domain);
    if (hit && Date.now() - hit.at < ROUTE_TTL_MS) return hit.route;
    const r = await routeOf(this.d.db, domain);
    const route = r ? { proxyId: r.proxyId, status: r.status, origin: customOrigin(this.d.config.PUBLIC_URL, domain) } : NOT_CUSTOM;
    // The oldest entry makes room (a Map keeps insertion order).
    if (this.routes.size >= ROUTE_CACHE_MAX) this.routes.delete(this.routes.keys().next().value!);
    this.routes.delete(domain);
    this.routes.set(domain, { route, at: Date.now() });
    return route;
  }

  private async own(viewer: Viewer, id: string, domain: string): Promise<DomainRow & { ownerId: string }> {
    const dep = await ownedDeployment(this.d.db, viewer, id);
    const row = (await domainsOf(this.d.db, dep.id)).find((r) => r.domain === domain.toLowerCase());
    if (!row) throw new AppError("not_found", DOMAIN_TEXT.notFound);
    return { ...row, ownerId: dep.userId };
  }

  private async lookup(row: DomainRow): Promise<boolean | "failed"> {
    const values = await this.d.txt(`${CHALLENGE_PREFIX}.${row.domain}`);
    if (values === "failed") return "failed";
    return values !== "missing" && values.includes(row.token);
  }

  private view(r: DomainRow): DomainView {
    return {
      domain: r.domain,
      status: r.status,
      url: customResourceUrl(this.d.config.PUBLIC_URL, r.domain),
      txt: { name: `${CHALLENGE_PREFIX}.${r.domain}`, value: r.token },
      cname: { name: r.domain, value: new URL(this.d.config.PUBLIC_URL).hostname },
      verified_at: r.verifiedAt?.toISOString() ?? null,
      checked_at: r.checkedAt?.toISOString() ?? null,
    };
  }
}
