// The boundaries of the code base (README, "Project layout"), checked by `npm run check:boundaries`
// as part of `npm test`.
// "No two features import each other" (a two-way pair of feature folders) and the README's "May import"
// column are checked by src/server/layout.test.ts ("the features' imports"), which computes the feature graph.
// A feature's repo modules (repo.ts, *-repo.ts, repo/, and those of its sub-folders) are its SQL: one writer per table, so only the
// feature itself imports them (rule "feature-repos-are-private"). Tests are not cruised (options.exclude).
const REPO_MODULES = "^src/server/features/[^/]+/(repo\\.ts$|[a-z-]+-repo\\.ts$|repo/|[a-z]+/repo\\.ts$|[a-z]+/[a-z-]+-repo\\.ts$)";
// Imports of another feature's repo that code makes today, each allowed for its importer only (a rule
// per importer below forbids it every other feature's repo). Shrink this list; do not grow it.
const REPO_EXCEPTIONS = [
  {
    from: "^src/server/cli/admin\\.ts$",
    to: "^src/server/features/(profile|auth)/repo\\.ts$",
    why: "the operators' CLI finds users (auth's user table) and grants or lists admins (profiles) straight from the database",
  },
  {
    from: "^src/server/features/registry-api/",
    to: "^src/server/features/catalog/(repo|registry-repo)\\.ts$",
    why: "the registry API answers with catalogue rows, and its importer writes the entries it imports",
  },
  {
    from: "^src/server/features/deployments/",
    to: "^src/server/features/(catalog|publishers)/repo\\.ts$",
    why: "deploying reads the server it runs (findServer, findOwnedServer)",
  },
  {
    from: "^src/server/features/connections/",
    to: "^src/server/features/catalog/repo\\.ts$",
    why: "connecting a catalogue entry's remote reads that entry (findServer), as deploying does",
  },
  {
    from: "^src/server/features/gateway/",
    to: "^src/server/features/api-keys/repo\\.ts$",
    why: "a session's API key is looked up on every request that brings one (findKeyOwner)",
  },
];
const ownFeature = (from) => (/^\^src\/server\/features\/[^/]+\//.exec(from) ?? [])[0];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import cycles: a cycle means two modules are really one, or one of them owns too much.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "shared-is-shared",
      comment: "src/shared is used by the browser and the server alike: it imports neither side, nor Node's modules.",
      severity: "error",
      from: { path: "^src/shared/" },
      to: { path: "^src/(server|web)/|^node:|^(fs|path|os|child_process|crypto|net|http)$", dependencyTypesNot: ["npm"] },
    },
    {
      name: "server-never-imports-web",
      severity: "error",
      from: { path: "^src/server/" },
      to: { path: "^src/web/" },
    },
    {
      name: "web-reaches-server-only-through-route-modules",
      comment:
        "Components, hooks and the root render what loaders give them; only route modules (and the load context's types) touch the server.",
      severity: "error",
      from: { path: "^src/web/", pathNot: "^src/web/(routes/|load-context\\.ts$)" },
      to: { path: "^src/server/" },
    },
    {
      name: "web-routes-call-services-not-storage",
      comment: "A route's loader calls a feature's service; SQL, the database, HTTP plumbing and the runtime stay on the server's side.",
      severity: "error",
      from: { path: "^src/web/routes/" },
      to: {
        path: "^src/server/(db/|http/|platform\\.ts|main\\.ts|features/runtime/|features/[^/]+/(repo|[a-z-]+-repo|[a-z]+/repo|[a-z]+/[a-z-]+-repo)\\.ts)",
      },
    },
    {
      name: "runtime-imports-no-feature",
      comment: "The runtime runs processes; it knows nothing of users, plans, the catalogue or the gateway.",
      severity: "error",
      from: { path: "^src/server/features/runtime/" },
      to: { path: "^src/server/features/(?!runtime/)" },
    },
    {
      name: "deployment-state-has-one-owner",
      comment:
        "Only features/deployments writes deployments, runners and server capabilities: nobody else imports its repo, placement/, lifecycle, reconciler or event recorder (the platform assembly wires the lifecycle). Connections and toolsets, deployments of other kinds, reserve and list their rows through deployments/kinds.ts.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/server/(features/deployments/|platform\\.ts$|platform-[a-z-]+\\.ts$|http/deps\\.ts$)" },
      to: { path: "^src/server/features/deployments/((repo|lifecycle|event-recorder|reconciler)\\.ts$|placement/)" },
    },
    {
      name: "feature-repos-are-private",
      comment:
        "A feature's repo modules are imported only from within that feature (one writer per table) and by the platform assembly (src/server/platform.ts and its platform-*.ts parts), which wires repos into other features' ports. Exceptions, each for its importer only: " +
        REPO_EXCEPTIONS.map((e) => `${e.from} -> ${e.to}: ${e.why}`).join("; "),
      severity: "error",
      from: { path: "^src/server/features/([^/]+)/", pathNot: REPO_EXCEPTIONS.map((e) => e.from) },
      to: { path: REPO_MODULES, pathNot: "^src/server/features/$1/" },
    },
    {
      name: "feature-repos-are-private",
      comment: "Outside the features, only the platform assembly imports repo modules (and the exceptions above).",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: ["^src/server/(features/|platform\\.ts$|platform-[a-z-]+\\.ts$)", ...REPO_EXCEPTIONS.map((e) => e.from)],
      },
      to: { path: REPO_MODULES },
    },
    ...REPO_EXCEPTIONS.map((e) => ({
      name: "feature-repos-are-private",
      comment: `Exception: ${e.from} may import ${e.to} (${e.why}), no other feature's repo.`,
      severity: "error",
      from: { path: e.from },
      to: { path: REPO_MODULES, pathNot: [ownFeature(e.from), e.to].filter(Boolean) },
    })),
    {
      name: "runtime-has-a-public-part",
      comment:
        "Other code uses the runtime through its declared public part only: the Runner interface (runner.ts), createRuntime (index.ts), the pure command parsers (command.ts, command-lex.ts, sources/*/npx.ts, uvx.ts, docker.ts, git-url.ts), the address ranges (sandbox/cidr.ts), the line masking (process/lines.ts), the runner's watchdog (process/watchdog.ts, started by the runner agent) and the sign-in port a connection's link calls (links/remote-auth.ts). Its processes, sources, links and sandbox stay inside.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/server/(features/runtime/|platform\\.ts$|platform-[a-z-]+\\.ts$)" },
      to: {
        path: "^src/server/features/runtime/",
        pathNot:
          "^src/server/features/runtime/(runner|index|command|command-lex|sources/npm/npx|sources/python/uvx|sources/image/docker|sources/git/git-url|sandbox/cidr|process/lines|process/watchdog|links/remote-auth)\\.ts$",
      },
    },
    {
      name: "gateway-sees-only-the-runner-interface",
      severity: "error",
      from: { path: "^src/server/features/gateway/" },
      to: { path: "^src/server/features/runtime/(?!runner\\.ts$)" },
    },
    {
      name: "gateway-writes-no-deployment-state",
      comment:
        "The gateway reads pins and reports listings through the PinsPort the platform gives it; of features/deployments it imports only the definitions' pure logic (definitions/definitions.ts).",
      severity: "error",
      from: { path: "^src/server/features/gateway/" },
      to: { path: "^src/server/features/deployments/(?!definitions/definitions\\.ts$)" },
    },
    {
      name: "billing-asks-deployments-through-its-port",
      comment: "Billing stops what a plan no longer allows through the HostingLimits port it is given, never by importing hosting.",
      severity: "error",
      from: { path: "^src/server/features/billing/" },
      to: { path: "^src/server/features/(deployments|runtime)/" },
    },
    {
      name: "features-do-not-import-the-assembly",
      severity: "error",
      from: { path: "^src/server/features/" },
      to: { path: "^src/server/(platform|platform-[a-z-]+|main|entry|dev)\\.ts$|^src/server/http/app\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.test\\.tsx?$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".mjs", ".cjs", ".json"],
    },
  },
};
