import { z } from "zod";

// The Deployment panel's texts and rules (docs/product.md#hosting).
export const DEPLOY_TEXT = {
  processing: "Processing deployment request...",
  missingKeys: (names: string[]) => `Missing required API keys: ${names.join(", ")}`,
  needsSource: "A repository URL or npx command is required to deploy this server.",
  deployFailed: "Deployment failed",
  deployFailedDefault: "Failed to deploy server",
  undeployFailed: "Undeployment failed",
  undeployFailedDefault: "Failed to undeploy server",
  stop: "Stop Server",
  stopping: "Stopping...",
  deploy: "Deploy",
  started: "Deployment started",
  stopped: "Deployment stopped",
  alreadyDeployed: "This server is already deployed. Stop it before deploying again.",
  notOwner: "You can only deploy servers you own.",
  notFound: "Deployment not found",
  serverNotFound: "Server not found",
  mustLogin: "You must be logged in to deploy a server",
  runningLimit: (plan: string, n: number) =>
    `Your ${plan} plan allows ${n} running deployment${n === 1 ? "" : "s"} at a time. Stop a deployment or upgrade your plan.`,
  hostingClosed:
    "Deploying is limited to administrators on this server for now: its hosting sandbox is missing a protection. An administrator can see which on the admin page.",
  badEnvName: (name: string) => `"${name}" is not a valid environment variable name`,
  reservedEnv: (name: string) => `"${name}" cannot be set for a deployment`,
  dockerOnly: (image: string) =>
    `This server is distributed as a Docker image (${image}) without a command Switchboard can run: it runs images that speak over standard input ("docker run -i" with the names of their keys) or streamable HTTP at /mcp on a port they name ("docker run -p 8080"), so it cannot be deployed here.`,
  otherPackage: (kind: string, name: string) =>
    `This server is distributed as a ${kind} package (${name}), which Switchboard cannot run, so it cannot be deployed here.`,
  badCommand: (why: string) => `This server's command cannot run here: ${why}`,
  remoteOnly:
    "This server is hosted by its publisher: there is nothing to deploy. Connect it through Switchboard instead (Connect on its page, or POST /api/connections), or connect your client to its URL.",
  commandLabel: "Command (optional)",
  commandHint:
    'Leave empty to build the repository. Or run a package: "npx -y @scope/server" or "uvx mcp-server-name", or an image: "docker run -i -e API_KEY ghcr.io/you/server:1"; with the repository, "python -m my_server" runs one of its modules.',
  toolsTitle: "Tool selection",
  toolsHint:
    "Clients, the playground included, see and call only the tools ticked here. Hidden tools are left out of listings and refused if called.",
  toolsCount: (shown: number, all: number) => `${shown} of ${all} tools exposed`,
  toolsSave: "Save",
  toolsSaving: "Saving...",
  toolsSaved: "Saved: connected clients are told the tool list changed.",
  toolsNone: "Its tools are listed here once it has started.",
  restart: "Restart",
  restarting: "Restarting...",
  restarted: "Restarting: same URL, keys and settings.",
  restartFailed: "Could not restart the deployment",
  tooManyRestarts: (seconds: number) => `Too many restarts of this deployment: try again in ${seconds} seconds.`,
  editKeys: "Edit keys",
  editKeysHint:
    "New values are encrypted and the server restarts with them: same URL, grants, tool selection and request log. This is not a new deploy. Leave a key empty to keep its current value.",
  saveKeys: "Save and restart",
  keysSaved: "Keys saved: the server is restarting with them.",
  stopTitle: (name: string) => `Stop ${name}?`,
  stopText:
    "Clients using its URL get no answers until you deploy it again. The URL stays yours for this server: deploying it again gives the same URL, and clients configured with it carry on once it runs. Its keys are deleted (you enter them again to deploy), and so are its request log, its tool selection, its custom domains and the access of apps connected to it with OAuth.",
  cancel: "Cancel",
} as const;

// Sleeping deployments (docs/hosting.md#sleeping): stopped after DEPLOY_IDLE_MS without a request
// or an open stream, started again by the next request to their URL.
export const SLEEP_TEXT = {
  sleeping: "Sleeping: wakes on the next request",
  lastActive: (when: string) => `Last active ${when}`,
  neverActive: "No request yet",
  keepAwake: "Keep awake",
  keepAwakeHint: "Stays running while idle instead of sleeping. It counts against your concurrent deployments all the time.",
  keepAwakeProOnly: "Keeping a deployment awake while idle is part of the Pro plan.",
  allowSleep: "Allow sleeping",
  keptAwake: "This deployment stays awake while idle.",
  mayNowSleep: (minutes: string) => `This deployment sleeps after ${minutes} without a request.`,
  sleepingOff: "Sleeping is turned off on this server: deployments run until stopped.",
  keptLimit: (plan: string, n: number) =>
    `Your ${plan} plan keeps ${n} deployment${n === 1 ? "" : "s"}. Stop a deployment or upgrade your plan.`,
  wakeTimeout: (seconds: number) => `The MCP server did not wake within ${seconds} seconds. Try again in a moment.`,
  wakeFailed: (detail: string) => `The MCP server could not be woken: ${detail}`,
  woke: (ms: number) => `woke in ${ms} ms`,
  neverSleeps: "Connections and toolsets run no process of their own: they never sleep.",
  sleptFor: (name: string) =>
    `Put to sleep to make room for ${name}: your plan keeps a limited number of deployments awake at a time. It wakes on its next request.`,
  deploySleeps: (plan: string, n: number, names: string[]) =>
    `Your ${plan} plan keeps ${n} deployment${n === 1 ? "" : "s"} awake at a time: deploying this one puts ${names.join(", ")} to sleep. ${names.length === 1 ? "It wakes" : "They wake"} on the next request, putting another to sleep in turn.`,
  wakeSleeps: (plan: string, n: number, names: string[]) =>
    `Your ${plan} plan keeps ${n} deployment${n === 1 ? "" : "s"} awake at a time: waking this one puts ${names.join(", ")} to sleep.`,
  noRoom: (plan: string, n: number) =>
    `Your ${plan} plan keeps ${n} deployment${n === 1 ? "" : "s"} awake at a time, and ${n === 1 ? "the awake one is" : "every awake one is"} in use (a client has it open). Close that client or stop a deployment on My deployments, or upgrade to Pro.`,
  wakeRefused: (plan: string, n: number, deploymentsUrl: string, subscriptionUrl: string) =>
    `This MCP server is asleep and cannot wake now: your ${plan} plan keeps ${n} deployment${n === 1 ? "" : "s"} awake at a time, and ${n === 1 ? "the awake one is" : "every awake one is"} in use (a client has it open). Close that client, stop a deployment at ${deploymentsUrl}, or upgrade to Pro at ${subscriptionUrl}; then try again.`,
} as const;

/** PUT /api/deployments/{id}/sleep: whether it stays awake while idle (Pro). */
export const keepAwakeInput = z.object({ keep_awake: z.boolean() });

/** PUT /api/deployments/{id}/tools: the names of the tools to hide (none: every tool is exposed). */
export const toolSelectionInput = z.object({
  hidden: z
    .array(z.string().min(1).max(200))
    .max(500, "At most 500 tools can be hidden")
    .transform((names) => [...new Set(names)].sort()),
});

/**
 * Whether a catalogue entry can run here (features/deployments/deployability.ts decides): a
 * package or repository to deploy, a server its publisher hosts, or the reason it cannot run.
 */
export type Deployability =
  | { kind: "deployable"; runtime: "npm" | "pypi" | "git" | "image" }
  | { kind: "remote"; url: string; transport: "streamable-http" | "sse" }
  | { kind: "unsupported"; reason: string };

// How hosted code is isolated on this instance, as start-up found it (features/runtime/sandbox/detect.ts).
export type GuaranteeKey = "uid" | "namespaces" | "seccomp" | "kernel" | "egress" | "memory" | "processes" | "disk" | "cpu" | "fds";

export interface Guarantee {
  key: GuaranteeKey;
  label: string;
  ok: boolean;
  /** how it holds, or why it does not */
  how: string;
}

export interface SandboxInfo {
  kind: "bwrap" | "none";
  /** egress: own network namespace with NAT to public addresses only; none: no network; host: the host's network */
  network: "egress" | "none" | "host";
  /** what isolates hosted code here, in one line (admin page, start-up log) */
  layer: string;
  guarantees: Guarantee[];
  /** every guarantee holds */
  complete: boolean;
  /** what is wrong here, one line each (the start-up log): the notes, then each missing guarantee */
  warnings: string[];
  /** remarks besides the guarantees (a tool missing, SANDBOX=off) */
  notes: string[];
}

// The admin page's account of the hosting sandbox (docs/hosting.md).
export const SANDBOX_TEXT = {
  title: "Hosting sandbox",
  complete: "Every protection holds: anyone signed in may deploy.",
  adminsOnly: "A protection is missing: only administrators may deploy until it is in place (SANDBOX_INCOMPLETE=admins).",
  everyone: "A protection is missing, and everyone may still deploy: the operator chose SANDBOX_INCOMPLETE=everyone.",
  protections: (ok: number, all: number) => `Protections (${ok} of ${all} hold)`,
} as const;

// Which machine runs a deployment (its RUNNER_NAME, docs/operations.md): admins only, in the panel.
export const MACHINE_TEXT = {
  on: (name: string) => `· on the machine “${name}”`,
  waiting: "· waiting for a machine with room",
  hint: "Only admins see this: the machine that runs this deployment (its RUNNER_NAME)",
} as const;

/**
 * Who may run hosted code: everyone when every guarantee of the sandbox holds here; otherwise
 * admins only, unless the operator chose SANDBOX_INCOMPLETE=everyone.
 */
export function hostingOpen(sandboxComplete: boolean, policy: "admins" | "everyone", isAdmin: boolean): boolean {
  return sandboxComplete || policy === "everyone" || isAdmin;
}

/**
 * A deployment runs a catalogue entry or a server someone registered; `remote` is a connection to
 * a URL its owner named; `toolset` is several of its owner's deployments behind one URL.
 */
export type ServerKind = "catalog" | "owned" | "remote" | "toolset";

export const STATUSES = [
  "queued",
  "installing",
  "starting",
  "running",
  "sleeping",
  "crashed",
  "crash_looping",
  "stopped",
  "failed",
] as const;
export type DeploymentStatus = (typeof STATUSES)[number];

/** 'crash_looping' -> 'Crash looping' (the panel shows the status capitalised, docs/product.md#statuses). */
export function statusLabel(s: string): string {
  const t = s.replace(/_/g, " ");
  return t.charAt(0).toUpperCase() + t.slice(1);
}

// Variables that would change how the runtime itself behaves are not the user's to set.
const RESERVED =
  /^(PATH|HOME|TMPDIR|SHELL|USER|LD_.*|NODE_OPTIONS|NODE_PATH|NODE_EXTRA_CA_CERTS|NODE_TLS_REJECT_UNAUTHORIZED|NPM_CONFIG_.*|PYTHONHOME|PYTHONUSERBASE|PYTHONNOUSERSITE|VIRTUAL_ENV|PIP_.*|BASH_ENV|ENV|IFS|PS4|PROMPT_COMMAND)$/i;

/** Whether a deployment may be given this environment variable (imports skip the ones it may not). */
export const settableEnv = (name: string) => /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name) && !RESERVED.test(name);

export const deployInput = z.object({
  /** an organisation's slug: it owns the deployment (absent or empty: the viewer does) */
  owner: z.string().trim().max(39).nullish(),
  repositoryUrl: z.string().trim().max(300).nullish(),
  npx_command: z.string().trim().max(500).nullish(),
  env: z
    .record(z.string(), z.string().max(4096, "Each key may be at most 4096 characters"))
    .default({})
    .check((ctx) => {
      const names = Object.keys(ctx.value);
      if (names.length > 50) ctx.issues.push({ code: "custom", message: "At most 50 keys", input: ctx.value });
      for (const n of names) {
        if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(n)) ctx.issues.push({ code: "custom", message: DEPLOY_TEXT.badEnvName(n), input: n });
        else if (RESERVED.test(n)) ctx.issues.push({ code: "custom", message: DEPLOY_TEXT.reservedEnv(n), input: n });
      }
    }),
});

/** PUT /api/deployments/{id}/env: new values for some of its keys (empty: keep the current one). */
export const envInput = z.object({ env: deployInput.shape.env });

/** The names of the required keys left blank in `env`. */
export function missingKeys(required: readonly { key: string; env_var: string }[], env: Record<string, unknown>): string[] {
  return required
    .filter((k) => {
      const value = env[k.env_var];
      return typeof value !== "string" || !value.trim();
    })
    .map((k) => k.key);
}

/**
 * The deploy body for a server that needs these keys: every one filled in first, then the rules
 * of `deployInput`.
 */
export function deployRequest(required: readonly { key: string; env_var: string }[]) {
  return z.preprocess((body, ctx) => {
    const env = body && typeof body === "object" ? (body as { env?: unknown }).env : undefined;
    const given = env && typeof env === "object" ? (env as Record<string, unknown>) : {};
    const missing = missingKeys(required, given);
    if (missing.length) ctx.addIssue({ code: "custom", message: DEPLOY_TEXT.missingKeys(missing) });
    return body;
  }, deployInput);
}

export const deploymentView = z.object({
  id: z.string(),
  server_id: z.string(),
  status: z.enum(STATUSES),
  status_detail: z.string().nullable(),
  exit_code: z.number().nullable(),
  restarts: z.number(),
  host_port: z.number(),
  proxy_id: z.string(),
  url: z.string(),
  sse_url: z.string(),
  source: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  /** admins only: the runner that holds it (null while it waits for one with room) */
  runner: z.string().nullable().optional(),
  /** the tools its owner chose not to expose (all are exposed by default) */
  hidden_tools: z.array(z.string()),
  /** the last request or open stream it served (null: none since it was deployed) */
  last_active_at: z.string().nullable(),
  /** its owner turned sleeping off for it (Pro): it stays awake while idle */
  keep_awake: z.boolean(),
  /** the organisation that owns it and the viewer's role in it (null: the viewer's own) */
  org: z.object({ slug: z.string(), name: z.string(), role: z.string(), manage: z.boolean() }).nullable().optional(),
});
export type DeploymentView = z.infer<typeof deploymentView>;
