// The boundaries of the code base (README, "Project layout"), checked by `npm run check:boundaries`
// as part of `npm test`.
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
      to: { path: "^src/server/(db/|http/|platform\\.ts|main\\.ts|features/runtime/|features/[^/]+/repo\\.ts)" },
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
        "Only features/deployments writes deployments, runners and server capabilities: nobody else imports its repo, placement, lifecycle or event recorder (the platform assembly wires the lifecycle).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/server/(features/deployments/|platform\\.ts$|http/deps\\.ts$)" },
      to: { path: "^src/server/features/deployments/(repo|lifecycle|placement|placement-sweep|event-recorder)\\.ts$" },
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
        "The gateway reads pins and reports listings through the PinsPort the platform gives it; of features/deployments it imports only the definitions' pure logic (definitions.ts).",
      severity: "error",
      from: { path: "^src/server/features/gateway/" },
      to: { path: "^src/server/features/deployments/(?!definitions\\.ts$)" },
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
      to: { path: "^src/server/(platform|main|entry|dev)\\.ts$|^src/server/http/app\\.ts$" },
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
