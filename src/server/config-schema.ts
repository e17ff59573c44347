import { isIP } from "node:net";
import { z } from "zod";
import { parseAllowList } from "./features/runtime/sandbox/cidr.js";
import { DEFAULT_FLOW } from "./features/runtime/runner.js";
import { DEFAULT_DEPLOYMENT_STREAM_BYTES, DEFAULT_STREAM_BYTES } from "./features/gateway/wire/sse.js";

// Every environment variable Switchboard reads, with its default and its rule: one schema over
// process.env (config.ts loads it once at start-up and checks what spans several variables).
/** 1.2.3.4, 1.2.3.4:5353, ::1 or [::1]:5353: what node:dns setServers takes. */
function isResolverAddress(a: string): boolean {
  const m = /^\[([^\]]+)\]:(\d{1,5})$/.exec(a) ?? /^([^:]+):(\d{1,5})$/.exec(a);
  const [host, port] = m ? [m[1]!, Number(m[2])] : [a, 53];
  return isIP(host) !== 0 && port >= 1 && port <= 65535;
}

const port = z.coerce.number().int().min(1).max(65535);
// An unset or blank variable means "use the default".
const optional = <T extends z.ZodType>(s: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : typeof v === "string" ? v.trim() : v), s.optional());
const optionalUrl = optional(z.url({ protocol: /^https?$/ }));
/** A comma-separated list; unset or blank: empty. */
const commaList = () =>
  z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean),
    );

export const schema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: port.default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  PUBLIC_URL: optionalUrl,
  DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")),
  DATA_DIR: z.string().min(1).default("./data"),
  EMBEDDED_PG_PORT: port.default(54329),
  SITE_NAME: z.string().trim().min(1).default("Switchboard"),
  BUILDER_URL: z.url({ protocol: /^https?$/ }).default("https://modelcontextprotocol.io/docs/develop/build-server"),
  COMMUNITY_URL: z.url({ protocol: /^https?$/ }).default("https://github.com/orgs/modelcontextprotocol/discussions"),
  AUTH_SECRET: optional(z.string().min(32, "must be at least 32 characters")),
  SMTP_URL: optional(z.string().regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")),
  MAIL_FROM: optional(z.string().min(3)),
  ADMIN_EMAILS: commaList().transform((list) => list.map((e) => e.toLowerCase())),
  GITHUB_CLIENT_ID: optional(z.string()),
  GITHUB_CLIENT_SECRET: optional(z.string()),
  GITHUB_OAUTH_URL: z.url({ protocol: /^https?$/ }).default("https://github.com"),
  GITHUB_API_URL: z.url({ protocol: /^https?$/ }).default("https://api.github.com"),
  AUTH_RATE_LIMIT: z.enum(["on", "off"]).default("on"),
  /** load balancers in front that append the client's address to X-Forwarded-For (0: use the connection's address) */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // Hosting (docs/hosting.md)
  SECRETS_KEY: optional(z.string().min(32, "must be at least 32 characters")),
  PACKAGES_DIR: optional(z.string().min(1)),
  DEPLOYMENTS_DIR: optional(z.string().min(1)),
  SANDBOX: z.enum(["auto", "bwrap", "strict", "off"]).default("auto"),
  /** who may deploy when a guarantee of the sandbox is missing here: admins only, or everyone (an operator's explicit choice) */
  SANDBOX_INCOMPLETE: z.enum(["admins", "everyone"]).default("admins"),
  SANDBOX_NETWORK: z.enum(["egress", "none", "host"]).default("egress"),
  /** private IPv4 destinations hosted code may reach after all (comma-separated addresses or CIDRs) */
  SANDBOX_EGRESS_ALLOW: z
    .string()
    .default("")
    .superRefine((v, ctx) => {
      try {
        parseAllowList(v);
      } catch (e) {
        ctx.addIssue({ code: "custom", message: (e as Error).message });
      }
    }),
  /** container registries (host or host:port, comma-separated) pulled from over plain HTTP or without checking TLS: an operator's own mirror or a test registry, never a tenant's choice */
  IMAGE_INSECURE_REGISTRIES: commaList().pipe(
    z.array(z.string().regex(/^[A-Za-z0-9.-]+(:[0-9]{1,5})?$/, "must be host or host:port names, comma-separated")),
  ),
  /**
   * credentials for private container registries: a file in docker's config.json (or containers'
   * auth.json) format, `{"auths": {"registry.example.com": {"auth": base64("user:token")}}}`; an
   * operator's setting, read at each pull, and each pull sees only its own registry's entry
   */
  IMAGE_REGISTRY_AUTH_FILE: z.string().default(""),
  /** an image's files and folders, at most: a layer bomb (countless small files) is stopped while it unpacks */
  IMAGE_MAX_FILES: z.coerce.number().int().min(100).max(10_000_000).default(200_000),
  /** first host uid of sandboxed processes (the platform's installs); deployments get the next 65,535 */
  SANDBOX_UID_BASE: z.coerce.number().int().min(1000).max(4_294_000_000).default(1_879_048_192),
  /** the simple-repository (PEP 503) index Python packages are installed from */
  PYPI_INDEX_URL: z.url({ protocol: /^https?$/ }).default("https://pypi.org/simple/"),
  /** the interpreter Python servers run with: a name on the sandbox's PATH or an absolute path under /usr */
  PYTHON: z.string().min(1).default("python3"),
  DEPLOY_MEMORY_MB: z.coerce.number().int().min(64).max(65536).default(512),
  DEPLOY_MAX_PROCESSES: z.coerce.number().int().min(16).max(1_000_000).default(256),
  DEPLOY_DISK_MB: z.coerce
    .number()
    .int()
    .min(16)
    .max(16 * 1024 * 1024)
    .default(1024),
  DEPLOY_CPUS: z.coerce.number().min(0).max(1024).default(1),
  /** what one server may make the platform hold and do for it (docs/hosting.md#what-a-server-costs-the-platform) */
  DEPLOY_STDIN_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(DEFAULT_FLOW.stdinBytes),
  DEPLOY_MESSAGES_PER_SECOND: z.coerce.number().int().min(10).default(DEFAULT_FLOW.messagesPerSecond),
  DEPLOY_OUTPUT_BYTES_PER_SECOND: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(DEFAULT_FLOW.bytesPerSecond),
  DEPLOY_FLOOD_STOP_MS: z.coerce.number().int().min(1000).default(DEFAULT_FLOW.floodStopMs),
  DEPLOY_START_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  /** A running deployment with no request and no open stream for this long sleeps; its next request wakes it (0: never sleeps) */
  DEPLOY_IDLE_MS: z.coerce
    .number()
    .int()
    .refine((n) => n === 0 || n >= 1000, "DEPLOY_IDLE_MS is 0 (never sleep) or at least 1000")
    .default(900_000),
  DEPLOY_INSTALL_TIMEOUT_MS: z.coerce.number().int().min(1000).default(300_000),
  /** Connections (remote servers): how long an answer's headers may take, and the whole answer to one message */
  CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  CONNECTION_ANSWER_TIMEOUT_MS: z.coerce.number().int().min(100).default(300_000),
  /** Connections one user may have */
  CONNECTIONS_PER_USER: z.coerce.number().int().min(0).default(20),
  /** Toolsets one user may have */
  TOOLSETS_PER_USER: z.coerce.number().int().min(0).default(10),
  /** How often a toolset checks its members (a ping when up, a connect when down) */
  TOOLSET_CHECK_MS: z.coerce.number().int().min(100).default(5000),
  /** Restart and Edit keys of one deployment a minute, from any process (0: no limit): each one starts a sandbox anew */
  DEPLOY_RESTARTS_PER_MINUTE: z.coerce.number().int().min(0).default(6),
  RESTART_BACKOFF_MS: z.coerce.number().int().min(10).default(1000),
  RESTART_BACKOFF_MAX_MS: z.coerce.number().int().min(10).default(300_000),
  HEALTHY_RESET_MS: z.coerce.number().int().min(10).default(600_000),
  CRASH_LOOP_AFTER: z.coerce.number().int().min(1).default(5),
  // Gateway (docs/gateway.md)
  GATEWAY_SESSION_IDLE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(30 * 60_000),
  GATEWAY_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
  /** what one client stream, and one deployment's streams together, may hold for clients that do not keep up (gateway/wire/sse.ts) */
  GATEWAY_STREAM_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(DEFAULT_STREAM_BYTES),
  GATEWAY_DEPLOYMENT_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(DEFAULT_DEPLOYMENT_STREAM_BYTES),
  /** bytes of requests in flight at once per deployment and per credential (gateway/in-flight.ts); one request alone may be larger */
  GATEWAY_INFLIGHT_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(8 * 1024 * 1024),
  GATEWAY_MAX_SESSIONS: z.coerce.number().int().min(1).default(200),
  GATEWAY_REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(10 * 60_000),
  /**
   * the platform checks its own demo catalogue's entries ('works here') in the background after
   * start-up, one at a time, once the sandbox is complete; their listings need no admin (docs/product.md#works-here)
   */
  SEED_CHECKS: z.enum(["on", "off"]).default("on"),
  // The living catalogue (docs/operations.md#registry-sync): an official-registry compatible
  // /v0.1/servers endpoint the catalogue is kept in step with (the operator's choice of address); unset: off.
  REGISTRY_SYNC_URL: optionalUrl,
  /** how often the cluster asks it for changes (one process at a time) */
  REGISTRY_SYNC_MS: z.coerce.number().int().min(10_000).default(3_600_000),
  /** new synced entries the platform checks ('works here') an hour, one at a time; 0: none (admins check by hand) */
  REGISTRY_SYNC_CHECKS_PER_HOUR: z.coerce.number().int().min(0).max(3600).default(0),
  /** one page's answer: at most this long, and this many bytes */
  REGISTRY_SYNC_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  REGISTRY_SYNC_MAX_PAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  // Fair use (docs/gateway.md#fair-use): requests a minute per deployment and per credential, by the owner's plan; 0: no limit.
  GATEWAY_RATE_FREE: z.coerce.number().int().min(0).default(1200),
  GATEWAY_RATE_PRO: z.coerce.number().int().min(0).default(12_000),
  USAGE_FLUSH_MS: z.coerce.number().int().min(10).default(1000),
  // Seeing what deployments do (docs/observability.md)
  /** owners' request log: how long rows are kept (0 turns the log off) */
  REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().min(0).max(365).default(7),
  /** Pro owners' request log (advanced monitoring): how long rows are kept; never less than REQUEST_LOG_RETENTION_DAYS */
  REQUEST_LOG_RETENTION_DAYS_PRO: z.coerce.number().int().min(1).max(3650).default(30),
  /** Custom domains (docs/operations.md#custom-domains): DNS servers (ip or ip:port, comma separated) the TXT records are read from; empty: the system's */
  CUSTOM_DOMAIN_RESOLVERS: commaList().refine(
    (list) => list.every(isResolverAddress),
    "must be IP addresses, each with an optional :port (an IPv6 one with a port as [addr]:port)",
  ),
  /** how often the cluster checks every custom domain's TXT record again */
  CUSTOM_DOMAIN_CHECK_MS: z.coerce.number().int().min(100).default(3_600_000),
  /** a verified domain whose record is missing this long is suspended (it stops routing until verified again) */
  CUSTOM_DOMAIN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(72 * 3_600_000),
  /** Pro alerts (docs/observability.md#alerts): how often the cluster looks for what to alert on */
  ALERTS_SWEEP_MS: z.coerce.number().int().min(100).default(60_000),
  /** a deployment's error-rate and latency thresholds are checked once this many requests came in the last 5 minutes */
  ALERT_MIN_REQUESTS: z.coerce.number().int().min(1).default(10),
  /** e-mails one deployment's alerts send in an hour at most (beyond: listed, not sent) */
  ALERT_EMAILS_PER_HOUR: z.coerce.number().int().min(1).default(10),
  /** owners' request log: at most this many rows per deployment (the oldest go first) */
  REQUEST_LOG_MAX_ROWS: z.coerce.number().int().min(10).max(1_000_000).default(10_000),
  /** GET /metrics answers only with `Authorization: Bearer METRICS_TOKEN`; without it, and without METRICS_PORT, it answers 404 */
  METRICS_TOKEN: optional(z.string().min(16, "must be at least 16 characters")),
  /** a separate internal port for GET /metrics with no token (never expose it publicly) */
  METRICS_PORT: optional(port),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** OpenTelemetry traces go to {endpoint}/v1/traces (OTLP over HTTP, JSON); unset: no traces */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  OTEL_SERVICE_NAME: z.string().trim().min(1).default("switchboard"),
  // Billing (docs/billing.md): without STRIPE_SECRET_KEY the built-in test-mode checkout is used.
  STRIPE_SECRET_KEY: optional(z.string().min(1)),
  STRIPE_WEBHOOK_SECRET: optional(z.string().min(1)),
  /** Stripe's API address (tests point it at a local stand-in); default https://api.stripe.com */
  STRIPE_API_BASE: optional(z.url({ protocol: /^https?$/ })),
  /** a recurring Price for Pro; without it the checkout describes the $20/month price itself */
  STRIPE_PRICE_PRO: optional(z.string().min(1)),
  BILLING_SWEEP_MS: z.coerce.number().int().min(100).default(60_000),
  // Several processes and machines (docs/operations.md)
  /** what this process does: all (alone, the default), or any of web (pages and REST API), gateway (MCP traffic), runner (hosted servers) */
  ROLES: z
    .string()
    .default("all")
    .transform((v, ctx) => {
      const parts = [
        ...new Set(
          v
            .split(",")
            .map((p) => p.trim().toLowerCase())
            .filter(Boolean),
        ),
      ];
      if (parts.length === 0 || (parts.length === 1 && parts[0] === "all")) return { web: true, gateway: true, runner: true, all: true };
      const bad = parts.filter((p) => !["web", "gateway", "runner"].includes(p));
      if (bad.length) {
        ctx.addIssue({
          code: "custom",
          message: `must be all, or a comma-separated list of web, gateway and runner (unknown: ${bad.join(", ")})`,
        });
        return z.NEVER;
      }
      return { web: parts.includes("web"), gateway: parts.includes("gateway"), runner: parts.includes("runner"), all: false };
    }),
  /** worker processes serving web and gateway traffic: a number, or auto (one per core in production, else 1) */
  WORKERS: z
    .string()
    .default("auto")
    .transform((v, ctx) => {
      const t = v.trim().toLowerCase();
      if (t === "" || t === "auto") return "auto" as const;
      const n = Number(t);
      if (!Number.isInteger(n) || n < 1 || n > 256) {
        ctx.addIssue({ code: "custom", message: "must be auto or a whole number from 1 to 256" });
        return z.NEVER;
      }
      return n;
    }),
  /** shared by every process of a cluster: authenticates gateway -> runner forwarding and internal calls */
  CLUSTER_SECRET: optional(z.string().min(32, "must be at least 32 characters")),
  /** the runner's internal port (MCP traffic forwarded by gateways, stop and logs calls): never a public entry */
  RUNNER_PORT: port.default(3100),
  RUNNER_HOST: z.string().min(1).default("0.0.0.0"),
  /** where gateways reach this runner; default http://{host name}:{RUNNER_PORT} */
  RUNNER_URL: optionalUrl,
  /** this runner's stable name; default the host name */
  RUNNER_NAME: optional(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, "letters, digits, dots, dashes and underscores, up to 63")),
  /** memory offered to deployments on this runner; default 80% of the machine's memory */
  RUNNER_CAPACITY_MB: optional(z.coerce.number().int().min(64)),
  /** a runner that has not heartbeated for this long loses its deployments to other runners */
  RUNNER_LEASE_MS: z.coerce.number().int().min(1500).default(15_000),
  // Test-only: lets deployments clone file:// repositories (never in production).
  GIT_ALLOW_FILE: z.enum(["on", "off"]).default("off"),
  // Test-only: client metadata documents on `.test` hosts are read over http from 127.0.0.1 (never in production).
  OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: z.enum(["on", "off"]).default("off"),
});
