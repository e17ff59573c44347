import { isIP } from "node:net";
import { z } from "zod";
import { parseAllowList } from "./features/runtime/sandbox/cidr.js";
import { DEFAULT_FLOW } from "./features/runtime/runner.js";
import { DEFAULT_DEPLOYMENT_STREAM_BYTES, DEFAULT_STREAM_BYTES } from "./features/gateway/wire/sse.js";

// Every environment variable Switchboard reads, with its default and its rule: one schema over
// process.env (config.ts loads it once at start-up and checks what spans several variables).
// docs/configuration.md is generated from it (npm run docs:config, scripts/config-docs.ts): each
// key's /** comment */ is what the page says it does (an `@default` line names a default computed
// elsewhere), and a // comment above a key starts a section there ("Title (docs/link): intro").
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
  /** `development`, `production` or `test`; `production` hides development-only pages */
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  /** HTTP port */
  PORT: port.default(3000),
  /** address to bind */
  HOST: z.string().min(1).default("0.0.0.0"),
  /**
   * the address users reach the app at; the only Origin accepted on state-changing requests
   * @default `http://localhost:$PORT`
   */
  PUBLIC_URL: optionalUrl,
  /** external PostgreSQL (`postgres://` or `postgresql://`); when empty the embedded one is started */
  DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, "must start with postgres:// or postgresql://")),
  /** embedded PostgreSQL data and other local state */
  DATA_DIR: z.string().min(1).default("./data"),
  /** first port tried for the embedded PostgreSQL */
  EMBEDDED_PG_PORT: port.default(54329),
  /** product name in titles, headings and the footer */
  SITE_NAME: z.string().trim().min(1).default("Switchboard"),
  /** the header's builder-tool link */
  BUILDER_URL: z.url({ protocol: /^https?$/ }).default("https://modelcontextprotocol.io/docs/develop/build-server"),
  /** the footer's community chat link */
  COMMUNITY_URL: z.url({ protocol: /^https?$/ }).default("https://github.com/orgs/modelcontextprotocol/discussions"),
  /**
   * signs sessions and e-mail links; at least 32 characters; set it in production
   * @default *(generated into `DATA_DIR/auth-secret`)*
   */
  AUTH_SECRET: optional(z.string().min(32, "must be at least 32 characters")),
  /**
   * SMTP server for account e-mails (`smtp://` or `smtps://`); when empty they go to the log and to
   * `/dev/outbox` (`/dev/outbox.json`), outside production
   */
  SMTP_URL: optional(z.string().regex(/^smtps?:\/\//, "must start with smtp:// or smtps://")),
  /**
   * sender of account e-mails
   * @default `$SITE_NAME <no-reply@host>`
   */
  MAIL_FROM: optional(z.string().min(3)),
  /** comma-separated addresses that become admins when they sign up or sign in */
  ADMIN_EMAILS: commaList().transform((list) => list.map((e) => e.toLowerCase())),
  /**
   * GitHub OAuth app for 'Continue with GitHub', with `GITHUB_CLIENT_SECRET` (callback
   * `$PUBLIC_URL/api/auth/callback/github`); empty: no GitHub sign-in
   */
  GITHUB_CLIENT_ID: optional(z.string()),
  /** the secret of the GitHub OAuth app of `GITHUB_CLIENT_ID` */
  GITHUB_CLIENT_SECRET: optional(z.string()),
  /** GitHub's sign-in endpoint (GitHub Enterprise, or a test stand-in) */
  GITHUB_OAUTH_URL: z.url({ protocol: /^https?$/ }).default("https://github.com"),
  /** GitHub's API endpoint (GitHub Enterprise, or a test stand-in) */
  GITHUB_API_URL: z.url({ protocol: /^https?$/ }).default("https://api.github.com"),
  /** rate limits on sign-in, sign-up and password reset */
  AUTH_RATE_LIMIT: z.enum(["on", "off"]).default("on"),
  /**
   * load balancers in front that append the client's address to `X-Forwarded-For` (per-address limits
   * count the address the outermost one saw; `0`: the connection's address)
   */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  /** `fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent` */
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  // Hosting (docs/hosting.md)
  /**
   * encrypts deployment secrets (AES-256-GCM); at least 32 characters; set it in production and keep it
   * @default *(generated into `DATA_DIR/secrets-key`)*
   */
  SECRETS_KEY: optional(z.string().min(32, "must be at least 32 characters")),
  /**
   * shared cache of installed npm packages (one directory per name@version), PyPI packages (`pypi/`, one
   * virtual environment per name@version) and container images (`images/`, one unpacked tree per digest
   * and architecture)
   * @default `$DATA_DIR/packages`
   */
  PACKAGES_DIR: optional(z.string().min(1)),
  /**
   * each deployment's own writable directory (and its git checkout)
   * @default `$DATA_DIR/deployments`
   */
  DEPLOYMENTS_DIR: optional(z.string().min(1)),
  /**
   * `auto`: bubblewrap with every protection this machine allows, each missing one named on the admin
   * page; `bwrap`: refuse to start without bubblewrap; `strict`: refuse to start unless every protection
   * holds; `off`: plain processes (development only)
   */
  SANDBOX: z.enum(["auto", "bwrap", "strict", "off"]).default("auto"),
  /** who may deploy while a protection of the sandbox is missing here: `admins` only, or `everyone` (the operator's explicit choice) */
  SANDBOX_INCOMPLETE: z.enum(["admins", "everyone"]).default("admins"),
  /**
   * `egress`: own network namespace reaching public addresses only (needs `slirp4netns`); `none`: no
   * network; `host`: the host's network
   */
  SANDBOX_NETWORK: z.enum(["egress", "none", "host"]).default("egress"),
  /**
   * private IPv4 addresses or CIDRs hosted code and connections may reach after all, comma-separated
   * (`10.1.2.3,10.8.0.0/16`; connections reach them over plain http too)
   */
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
  /**
   * container registries (`host` or `host:port`, comma-separated) pulled from over plain HTTP or without
   * checking TLS: an operator's own mirror or a test registry, never a tenant's choice (docs/hosting.md)
   */
  IMAGE_INSECURE_REGISTRIES: commaList().pipe(
    z.array(z.string().regex(/^[A-Za-z0-9.-]+(:[0-9]{1,5})?$/, "must be host or host:port names, comma-separated")),
  ),
  /**
   * the operator's credentials for private container registries: a file in docker's `config.json` (or
   * containers' `auth.json`) format, `{"auths": {"registry.example.com": {"auth":
   * base64("user:token")}}}`, read at each pull; each pull sees only its own registry's entry
   * (docs/hosting.md)
   */
  IMAGE_REGISTRY_AUTH_FILE: z.string().default(""),
  /** an image's files and folders, at most: a layer bomb (countless small files) is stopped while it unpacks */
  IMAGE_MAX_FILES: z.coerce.number().int().min(100).max(10_000_000).default(200_000),
  /**
   * host uid of the platform's sandboxed installs; deployments get the next 65,534 uids, one each
   * (start-up refuses a range that includes an account, a group or a subordinate-id range of the host)
   */
  SANDBOX_UID_BASE: z.coerce.number().int().min(1000).max(4_294_000_000).default(1_879_048_192),
  /**
   * the simple-repository (PEP 503) index Python packages and repositories install from (https in
   * production; a private one needs `SANDBOX_EGRESS_ALLOW`)
   */
  PYPI_INDEX_URL: z.url({ protocol: /^https?$/ }).default("https://pypi.org/simple/"),
  /**
   * the interpreter of Python servers: 3.10 or newer with `venv`, a name on `/usr/local/bin:/usr/bin` or
   * a path under `/usr` (the sandbox sees only the system)
   */
  PYTHON: z.string().min(1).default("python3"),
  /** memory limit of one deployment (all its processes and its `/tmp`; stopped above it) */
  DEPLOY_MEMORY_MB: z.coerce.number().int().min(64).max(65536).default(512),
  /** processes and threads of one deployment */
  DEPLOY_MAX_PROCESSES: z.coerce.number().int().min(16).max(1_000_000).default(256),
  /** size of one deployment's own volume (its directory) */
  DEPLOY_DISK_MB: z.coerce
    .number()
    .int()
    .min(16)
    .max(16 * 1024 * 1024)
    .default(1024),
  /** CPU cores one deployment may use (`0`: no quota, only the shared weight) */
  DEPLOY_CPUS: z.coerce.number().min(0).max(1024).default(1),
  /**
   * bytes of requests the platform holds for a server that has not read its stdin yet; beyond, a request
   * gets a JSON-RPC error at once (one request of any size goes when nothing waits;
   * docs/hosting.md#what-a-server-costs-the-platform)
   */
  DEPLOY_STDIN_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(DEFAULT_FLOW.stdinBytes),
  /**
   * lines a second of a server's output (stdout and stderr) the platform reads; beyond, it stops reading
   * until the budget refills (docs/hosting.md#what-a-server-costs-the-platform)
   */
  DEPLOY_MESSAGES_PER_SECOND: z.coerce.number().int().min(10).default(DEFAULT_FLOW.messagesPerSecond),
  /**
   * bytes a second of a server's output the platform reads (connections are read no faster either);
   * beyond, it stops reading until the budget refills (docs/hosting.md#what-a-server-costs-the-platform)
   */
  DEPLOY_OUTPUT_BYTES_PER_SECOND: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(DEFAULT_FLOW.bytesPerSecond),
  /**
   * a server whose output is held back this long without a break is stopped as `failed`, with why in its
   * status and log (docs/hosting.md#what-a-server-costs-the-platform)
   */
  DEPLOY_FLOOD_STOP_MS: z.coerce.number().int().min(1000).default(DEFAULT_FLOW.floodStopMs),
  /** how long a server may take to answer MCP `initialize` (and a request waits for a sleeping one to wake) */
  DEPLOY_START_TIMEOUT_MS: z.coerce.number().int().min(1000).default(60_000),
  /**
   * a running deployment with no request and no open stream this long sleeps; its next request wakes it
   * (`0`: never sleep, else at least 1000; docs/hosting.md#sleeping)
   */
  DEPLOY_IDLE_MS: z.coerce
    .number()
    .int()
    .refine((n) => n === 0 || n >= 1000, "DEPLOY_IDLE_MS is 0 (never sleep) or at least 1000")
    .default(900_000),
  /** limit for an npm or pip install, git clone or build */
  DEPLOY_INSTALL_TIMEOUT_MS: z.coerce.number().int().min(1000).default(300_000),
  /** connections (remote servers): how long an answer's headers may take */
  CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** connections: the longest answer to one message (a stream of events included) */
  CONNECTION_ANSWER_TIMEOUT_MS: z.coerce.number().int().min(100).default(300_000),
  /** connections one user may have (they count in no plan's deployment limits) */
  CONNECTIONS_PER_USER: z.coerce.number().int().min(0).default(20),
  /** toolsets one user may have (several deployments and connections behind one URL; they count in no plan's deployment limits) */
  TOOLSETS_PER_USER: z.coerce.number().int().min(0).default(10),
  /**
   * how often a toolset checks its members (a ping when up, a connect when down): a member that stopped
   * answering leaves its listings, one that is back returns
   */
  TOOLSET_CHECK_MS: z.coerce.number().int().min(100).default(5000),
  /** Restart and Edit keys of one deployment a minute, together, from any process (each starts a new sandbox); `0`: no limit */
  DEPLOY_RESTARTS_PER_MINUTE: z.coerce.number().int().min(0).default(6),
  /** crash restart delay: the first, doubling up to `RESTART_BACKOFF_MAX_MS` */
  RESTART_BACKOFF_MS: z.coerce.number().int().min(10).default(1000),
  /** crash restart delay: the cap it doubles up to */
  RESTART_BACKOFF_MAX_MS: z.coerce.number().int().min(10).default(300_000),
  /** running this long resets the back-off */
  HEALTHY_RESET_MS: z.coerce.number().int().min(10).default(600_000),
  /** crashes in a row before the status says `crash_looping` */
  CRASH_LOOP_AFTER: z.coerce.number().int().min(1).default(5),
  // Gateway (docs/gateway.md)
  /** an MCP session without requests or open streams this long ends */
  GATEWAY_SESSION_IDLE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(30 * 60_000),
  /** largest JSON-RPC message a client may POST to the gateway */
  GATEWAY_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(8 * 1024 * 1024),
  /**
   * bytes one client stream may hold for a client that does not keep up; beyond, that stream is closed
   * and the client resumes with `Last-Event-ID` or starts over
   * (docs/hosting.md#what-a-server-costs-the-platform)
   */
  GATEWAY_STREAM_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(DEFAULT_STREAM_BYTES),
  /** bytes one deployment's client streams together may hold for clients that do not keep up (as `GATEWAY_STREAM_BUFFER_BYTES`) */
  GATEWAY_DEPLOYMENT_BUFFER_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(DEFAULT_DEPLOYMENT_STREAM_BYTES),
  /**
   * bytes of requests in flight at once per deployment and per credential; beyond, 503 or 429 with
   * `Retry-After` before the body is read (one request alone always goes;
   * docs/gateway.md#bytes-in-flight)
   */
  GATEWAY_INFLIGHT_BYTES: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .default(8 * 1024 * 1024),
  /** open sessions per deployment (idle ones make room, else 429) */
  GATEWAY_MAX_SESSIONS: z.coerce.number().int().min(1).default(200),
  /** a call the server has not answered by then gets a JSON-RPC error */
  GATEWAY_REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .default(10 * 60_000),
  // The living catalogue (docs/operations.md#registry-sync): the platform's own checks ('works here', docs/product.md#works-here),
  // and a registry the catalogue is kept in step with.
  /**
   * the demo catalogue's entries that can run here are checked ('works here') in the background after
   * start-up, one at a time across the cluster, once the sandbox is complete; being the platform's own,
   * their tools are public without an admin; `off`: admins check them by hand
   * (docs/product.md#works-here)
   */
  SEED_CHECKS: z.enum(["on", "off"]).default("on"),
  /**
   * keep the catalogue in step with an official-registry compatible `/v0.1/servers` endpoint (e.g.
   * `https://registry.modelcontextprotocol.io/v0.1/servers`), the operator's choice of address; empty:
   * off
   */
  REGISTRY_SYNC_URL: optionalUrl,
  /** how often the cluster asks it for changes (one process at a time) */
  REGISTRY_SYNC_MS: z.coerce.number().int().min(10_000).default(3_600_000),
  /**
   * new synced entries the platform checks ('works here') an hour, one at a time across the cluster;
   * `0`: admins check by hand (docs/product.md#works-here)
   */
  REGISTRY_SYNC_CHECKS_PER_HOUR: z.coerce.number().int().min(0).max(3600).default(0),
  /** one page's answer: at most this long, else the run stops with the reason */
  REGISTRY_SYNC_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
  /** one page's answer: at most this many bytes, else the run stops with the reason */
  REGISTRY_SYNC_MAX_PAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  // Fair use and usage counts (docs/gateway.md#fair-use)
  /**
   * fair use: MCP requests a minute to one deployment and with one credential of a Free owner, across
   * all processes (`0`: no limit); past it 429 with `Retry-After`
   */
  GATEWAY_RATE_FREE: z.coerce.number().int().min(0).default(1200),
  /** fair use: the same for a Pro owner */
  GATEWAY_RATE_PRO: z.coerce.number().int().min(0).default(12_000),
  /** how often 'Total Usage' counts are written */
  USAGE_FLUSH_MS: z.coerce.number().int().min(10).default(1000),
  // The request log (docs/observability.md)
  /** how long the owners' request log keeps rows (`0`: no log; per-tool figures are still kept) */
  REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().min(0).max(365).default(7),
  /** how long a Pro owner's request log keeps rows (advanced monitoring; never less than `REQUEST_LOG_RETENTION_DAYS`) */
  REQUEST_LOG_RETENTION_DAYS_PRO: z.coerce.number().int().min(1).max(3650).default(30),
  /** request log rows kept per deployment (the oldest go first) */
  REQUEST_LOG_MAX_ROWS: z.coerce.number().int().min(10).max(1_000_000).default(10_000),
  // The audit log: who did what, when and from where (docs/product.md#audit-log).
  /** how long audit log entries are kept */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /** how long the entries of a Pro owner are kept (never less than `AUDIT_RETENTION_DAYS`) */
  AUDIT_RETENTION_DAYS_PRO: z.coerce.number().int().min(1).max(3650).default(365),
  // Custom domains, Pro (docs/operations.md#custom-domains)
  /**
   * the DNS servers TXT records are read from (`ip` or `ip:port`, an IPv6 one with a port as
   * `[addr]:port`, comma-separated); empty: the system's
   */
  CUSTOM_DOMAIN_RESOLVERS: commaList().refine(
    (list) => list.every(isResolverAddress),
    "must be IP addresses, each with an optional :port (an IPv6 one with a port as [addr]:port)",
  ),
  /** how often the cluster reads every custom domain's TXT record again */
  CUSTOM_DOMAIN_CHECK_MS: z.coerce.number().int().min(100).default(3_600_000),
  /** how long a verified domain's record may be missing before the domain is suspended (it stops routing until verified again) */
  CUSTOM_DOMAIN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(72 * 3_600_000),
  // Alerts, metrics and traces (docs/observability.md)
  /** Pro alerts: how often the cluster checks deployments for what to alert on (docs/observability.md#alerts) */
  ALERTS_SWEEP_MS: z.coerce.number().int().min(100).default(60_000),
  /** requests a 5-minute window needs before a deployment's error-rate and latency thresholds count */
  ALERT_MIN_REQUESTS: z.coerce.number().int().min(1).default(10),
  /** e-mails one deployment's alerts send an hour at most (beyond: listed, not sent) */
  ALERT_EMAILS_PER_HOUR: z.coerce.number().int().min(1).default(10),
  /**
   * `GET /metrics` (Prometheus) on the public port answers only with `Authorization: Bearer
   * $METRICS_TOKEN` (at least 16 characters); empty: 404 there
   */
  METRICS_TOKEN: optional(z.string().min(16, "must be at least 16 characters")),
  /** a separate internal port serving `/metrics` without a token (never expose it); empty: none */
  METRICS_PORT: optional(port),
  /** the address `METRICS_PORT` binds */
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  /** OpenTelemetry traces of gateway calls, sent as OTLP/HTTP JSON to `{endpoint}/v1/traces`; empty: no traces */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalUrl,
  /** the traces' `service.name` */
  OTEL_SERVICE_NAME: z.string().trim().min(1).default("switchboard"),
  // Billing (docs/billing.md): without `STRIPE_SECRET_KEY` the built-in test-mode checkout is used.
  /** real Stripe Checkout and webhooks, with `STRIPE_WEBHOOK_SECRET`; empty: the built-in test-mode checkout */
  STRIPE_SECRET_KEY: optional(z.string().min(1)),
  /** checks the Stripe events `$PUBLIC_URL/api/webhooks/stripe` receives */
  STRIPE_WEBHOOK_SECRET: optional(z.string().min(1)),
  /**
   * Stripe's API address (tests point it at a local stand-in)
   * @default *(Stripe's: `https://api.stripe.com`)*
   */
  STRIPE_API_BASE: optional(z.url({ protocol: /^https?$/ })),
  /** a recurring Stripe Price for Pro; without it the checkout describes the $20/month price itself */
  STRIPE_PRICE_PRO: optional(z.string().min(1)),
  /** how often ended periods and plan limits are checked */
  BILLING_SWEEP_MS: z.coerce.number().int().min(100).default(60_000),
  // Several processes and machines (docs/operations.md)
  /**
   * what this process does: `all` (alone: everything, the default), or a comma-separated list of `web`
   * (pages, REST API), `gateway` (MCP traffic), `runner` (hosted servers)
   * @default `all`
   */
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
  /**
   * worker processes serving web and gateway traffic on the one port: a number from 1 to 256, or `auto`
   * (one per core in production, else 1)
   */
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
  /**
   * shared by every process of a cluster: gateways authenticate to runners (forwarded MCP traffic and
   * internal calls) with it; at least 32 characters; required when `ROLES` is not `all` (as is
   * `DATABASE_URL`)
   * @default *(generated for workers)*
   */
  CLUSTER_SECRET: optional(z.string().min(32, "must be at least 32 characters")),
  /** a runner's internal port (MCP traffic forwarded by gateways, stop and output calls); never a public entry */
  RUNNER_PORT: port.default(3100),
  /** the address `RUNNER_PORT` binds */
  RUNNER_HOST: z.string().min(1).default("0.0.0.0"),
  /**
   * where gateways reach this runner
   * @default `http://{host name}:$RUNNER_PORT`
   */
  RUNNER_URL: optionalUrl,
  /**
   * this runner's stable name (a StatefulSet pod's name): letters, digits, dots, dashes and underscores,
   * up to 63
   * @default *(host name)*
   */
  RUNNER_NAME: optional(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, "letters, digits, dots, dashes and underscores, up to 63")),
  /**
   * memory this runner offers deployments; each reserves `DEPLOY_MEMORY_MB`
   * @default *(80% of memory)*
   */
  RUNNER_CAPACITY_MB: optional(z.coerce.number().int().min(64)),
  /** a runner silent this long loses its deployments to other runners (it heartbeats every fifth of it) */
  RUNNER_LEASE_MS: z.coerce.number().int().min(1500).default(15_000),
  // Tests only: never on in production (config.ts refuses them there).
  /** allow deployments to clone `file://` repositories (refused in production) */
  GIT_ALLOW_FILE: z.enum(["on", "off"]).default("off"),
  /** read OAuth client metadata documents on `.test` hosts over http from 127.0.0.1 (refused in production) */
  OAUTH_CIMD_ALLOW_HTTP_LOOPBACK: z.enum(["on", "off"]).default("off"),
});
