import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, parseAllDocuments } from "yaml";
import { ConfigError, loadConfig } from "~/server/config.js";
import { projectRoot } from "~/server/paths.js";

// The Kubernetes manifests (deploy/kubernetes, docs/operations.md "Kubernetes") rendered the way
// an operator applies them, `kubectl kustomize <dir>`, and checked for what the design relies on:
// web+gateway pods without the runner role, probed and autoscaled; runners with stable names and
// addresses, reachable by web+gateway pods only; secrets only from the Secret; the runner alone
// privileged, exactly as documented; resources everywhere. Every kustomization (base and each
// overlay) must hold all of it. KUBECTL names another kubectl binary (e.g. Debian's 1.20 one).

const KUBECTL = process.env.KUBECTL || "kubectl";
const probe = spawnSync(KUBECTL, ["version", "--client"], { encoding: "utf8", timeout: 30_000 });
const noKubectl = probe.error
  ? `${KUBECTL} is not installed, so the manifests cannot be rendered (apt-get install kubernetes-client)`
  : null;

const KUSTOMIZE_ROOT = path.join(projectRoot, "deploy/kubernetes");
/** every folder with a kustomization.yaml: base and the overlays */
function kustomizations(dir = KUSTOMIZE_ROOT): string[] {
  const here = readdirSync(dir).includes("kustomization.yaml") ? [path.relative(KUSTOMIZE_ROOT, dir)] : [];
  const sub = readdirSync(dir)
    .map((n) => path.join(dir, n))
    .filter((p) => statSync(p).isDirectory());
  return [...here, ...sub.flatMap((p) => kustomizations(p))];
}

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    resourceFieldRef?: { resource: string; containerName?: string; divisor?: string };
    secretKeyRef?: { name: string; key: string };
    configMapKeyRef?: { name: string; key: string };
  };
}
interface HttpProbe {
  httpGet?: { path: string; port: number | string };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: { secretRef?: { name: string }; configMapRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readinessProbe?: HttpProbe;
  livenessProbe?: HttpProbe;
  startupProbe?: HttpProbe;
  securityContext?: Record<string, unknown> & { capabilities?: { add?: string[]; drop?: string[] } };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  automountServiceAccountToken?: boolean;
  terminationGracePeriodSeconds?: number;
  securityContext?: Record<string, unknown>;
  volumes?: (Record<string, unknown> & { name: string })[];
}
type Labels = Record<string, string>;
interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Labels };
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    serviceName?: string;
    selector?: Labels | { matchLabels?: Labels };
    template?: { metadata: { labels: Labels }; spec: PodSpec };
    volumeClaimTemplates?: { metadata: { name: string } }[];
    clusterIP?: string;
    type?: string;
    ports?: { port: number; targetPort?: number | string; nodePort?: number }[];
    scaleTargetRef?: { apiVersion: string; kind: string; name: string };
    minReplicas?: number;
    metrics?: { type: string; resource?: { name: string } }[];
    podSelector?: { matchLabels?: Labels };
    policyTypes?: string[];
    ingress?: unknown[];
    rules?: { http?: { paths: { backend: { service?: { name: string; port: { number?: number; name?: string } } } }[] } }[];
    defaultBackend?: { service?: { name: string; port: { number?: number; name?: string } } };
  };
}

function render(dir: string): Resource[] {
  const r = spawnSync(KUBECTL, ["kustomize", path.join(KUSTOMIZE_ROOT, dir)], { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) throw new Error(`kubectl kustomize ${dir} failed (${r.status}):\n${r.stderr}`);
  return parseAllDocuments(r.stdout)
    .map((d) => d.toJS() as Resource | null)
    .filter((d): d is Resource => d !== null);
}

const matches = (selector: Labels | undefined, labels: Labels) =>
  !!selector && Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
const envOf = (c: Container, name: string) => c.env?.find((e) => e.name === name);
const allContainers = (p: PodSpec) => [...p.containers, ...(p.initContainers ?? [])];
/** a secret by its name: anything that authenticates, signs or decrypts, or a URL that may carry a password */
const SECRET_NAME = /SECRET|PASSWORD|TOKEN|(^|_)KEY$|^DATABASE_URL$|^SMTP_URL$/;

/** The runner container's whole securityContext as docs/operations.md documents it ("Runner privileges"). */
function documentedRunnerSecurityContext(): unknown {
  const doc = readFileSync(path.join(projectRoot, "docs/operations.md"), "utf8");
  const section = doc.split(/^### Runner privileges$/m)[1]?.split(/^#{2,3} /m)[0];
  const block = section && /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/operations.md has no yaml block under "### Runner privileges"');
  return parseYaml(block);
}

if (noKubectl) {
  describe("deploy/kubernetes rendered by kubectl kustomize", () => {
    it("checks the manifests", (ctx) => ctx.skip(noKubectl));
  });
}

describe.each(noKubectl ? [] : kustomizations())("deploy/kubernetes/%s rendered by kubectl kustomize", (dir) => {
  let all: Resource[] = [];
  let web: Resource;
  let runner: Resource;
  let webPod: PodSpec;
  let runnerPod: PodSpec;
  let webC: Container;
  let runnerC: Container;
  const ofKind = (kind: string) => all.filter((r) => r.kind === kind);
  const podLabels = (r: Resource) => r.spec!.template!.metadata.labels;

  beforeAll(() => {
    all = render(dir);
    const workloads = all.filter((r) => ["Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicaSet", "Pod"].includes(r.kind));
    const deployments = ofKind("Deployment");
    const statefulSets = ofKind("StatefulSet");
    // One web+gateway Deployment, one runner StatefulSet, and no other workload (no PostgreSQL: it is external).
    expect(workloads.map((w) => `${w.kind}/${w.metadata.name}`).sort()).toEqual(
      [`Deployment/${deployments[0]?.metadata.name}`, `StatefulSet/${statefulSets[0]?.metadata.name}`].sort(),
    );
    web = deployments[0]!;
    runner = statefulSets[0]!;
    webPod = web.spec!.template!.spec;
    runnerPod = runner.spec!.template!.spec;
    expect(webPod.containers).toHaveLength(1);
    expect(runnerPod.containers).toHaveLength(1);
    webC = webPod.containers[0]!;
    runnerC = runnerPod.containers[0]!;
  });

  it("runs web+gateway pods without the runner role, probed on /readyz and /healthz, scaled by a CPU autoscaler", () => {
    const roles = envOf(webC, "ROLES")
      ?.value?.split(",")
      .map((r) => r.trim());
    expect(roles?.sort()).toEqual(["gateway", "web"]);
    const port3000 = (p: number | string | undefined) => p === 3000 || webC.ports?.find((cp) => cp.name === p)?.containerPort === 3000;
    expect(webC.readinessProbe?.httpGet?.path).toBe("/readyz");
    expect(port3000(webC.readinessProbe?.httpGet?.port)).toBe(true);
    expect(webC.livenessProbe?.httpGet?.path).toBe("/healthz");
    expect(port3000(webC.livenessProbe?.httpGet?.port)).toBe(true);
    // Workers follow the CPU the pod may use, never the node's core count.
    expect(envOf(webC, "WORKERS")?.valueFrom?.resourceFieldRef).toMatchObject({ resource: "limits.cpu" });

    const hpas = ofKind("HorizontalPodAutoscaler").filter(
      (h) => h.spec?.scaleTargetRef?.kind === "Deployment" && h.spec.scaleTargetRef.name === web.metadata.name,
    );
    expect(hpas).toHaveLength(1);
    expect(hpas[0]!.apiVersion).toBe("autoscaling/v2");
    expect(hpas[0]!.spec!.metrics).toContainEqual(
      expect.objectContaining({ type: "Resource", resource: expect.objectContaining({ name: "cpu" }) }),
    );
    expect(hpas[0]!.spec!.minReplicas).toBeGreaterThanOrEqual(2);
    // The autoscaler owns the count: applying the manifests again must not reset it.
    expect(web.spec!.replicas).toBeUndefined();
  });

  it("runs runners as a StatefulSet named after its pods, each at its own address under a headless Service, probed on 3100", () => {
    expect(envOf(runnerC, "ROLES")?.value).toBe("runner");
    expect(envOf(runnerC, "RUNNER_NAME")?.valueFrom?.fieldRef?.fieldPath).toBe("metadata.name");
    expect(envOf(runnerC, "RUNNER_PORT")?.value ?? "3100").toBe("3100");
    expect(runnerC.ports?.map((p) => p.containerPort)).toEqual([3100]);

    const svc = ofKind("Service").find((s) => s.metadata.name === runner.spec!.serviceName);
    expect(svc?.spec?.clusterIP).toBe("None");
    expect(matches(svc?.spec?.selector as Labels, podLabels(runner))).toBe(true);
    expect(svc?.spec?.ports?.map((p) => p.port)).toEqual([3100]);

    // RUNNER_URL = http://$(POD_NAME).<headless service>[.<namespace>.svc]:3100, with POD_NAME the pod's own name, defined before it.
    const env = runnerC.env!;
    const urlAt = env.findIndex((e) => e.name === "RUNNER_URL");
    const podNameAt = env.findIndex((e) => e.name === "POD_NAME" && e.valueFrom?.fieldRef?.fieldPath === "metadata.name");
    expect(podNameAt).toBeGreaterThanOrEqual(0);
    expect(podNameAt).toBeLessThan(urlAt);
    const url = env[urlAt]!.value!;
    const host = new RegExp(
      `^http://\\$\\(POD_NAME\\)\\.${svc!.metadata.name.replace(/\./g, "\\.")}(\\.\\$\\(POD_NAMESPACE\\)\\.svc)?:3100$`,
    );
    expect(url).toMatch(host);
    if (url.includes("$(POD_NAMESPACE)")) {
      const nsAt = env.findIndex((e) => e.name === "POD_NAMESPACE" && e.valueFrom?.fieldRef?.fieldPath === "metadata.namespace");
      expect(nsAt).toBeGreaterThanOrEqual(0);
      expect(nsAt).toBeLessThan(urlAt);
    }

    const onRunnerPort = (p: number | string | undefined) =>
      p === 3100 || runnerC.ports?.find((cp) => cp.name === p)?.containerPort === 3100;
    expect(runnerC.readinessProbe?.httpGet?.path).toBe("/readyz");
    expect(onRunnerPort(runnerC.readinessProbe?.httpGet?.port)).toBe(true);
    expect(runnerC.livenessProbe?.httpGet?.path).toBe("/healthz");
    expect(onRunnerPort(runnerC.livenessProbe?.httpGet?.port)).toBe(true);

    // DATA_DIR (packages, deployment volumes) is on the pod's own claim, and a stop leaves time to hand over.
    const dataDir = envOf(runnerC, "DATA_DIR")?.value;
    const mount = runnerC.volumeMounts?.find((m) => m.mountPath === dataDir);
    expect(runner.spec!.volumeClaimTemplates?.map((v) => v.metadata.name)).toContain(mount?.name);
    expect(runnerPod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
  });

  it("starts the runner with a shell script that parses and ends by running the server", () => {
    const argv = [...(runnerC.command ?? []), ...(runnerC.args ?? [])];
    expect(argv.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
    const script = argv[2]!;
    expect(script.trim().split("\n").at(-1)).toBe("exec node dist/server.js");
    const syntax = spawnSync("/bin/sh", ["-n", "-c", script], { encoding: "utf8" });
    expect(syntax.status, syntax.stderr).toBe(0);
  });

  it("exposes port 3100 through no ordinary Service and no Ingress, and lets only web+gateway pods reach it", () => {
    const runnerLabels = podLabels(runner);
    const services = ofKind("Service");
    for (const s of services) {
      const toRunners = matches(s.spec?.selector as Labels, runnerLabels);
      const to3100 = (s.spec?.ports ?? []).some((p) => p.port === 3100 || p.targetPort === 3100 || p.targetPort === "runner");
      if (toRunners || to3100) {
        expect(s.spec?.clusterIP, `Service ${s.metadata.name} reaches runners`).toBe("None");
        expect(s.spec?.type ?? "ClusterIP").toBe("ClusterIP");
      }
    }
    const runnerServices = new Set(services.filter((s) => matches(s.spec?.selector as Labels, runnerLabels)).map((s) => s.metadata.name));
    for (const ing of ofKind("Ingress")) {
      const backends = [
        ...(ing.spec?.rules ?? []).flatMap((r) => r.http?.paths.map((p) => p.backend) ?? []),
        ...(ing.spec?.defaultBackend ? [ing.spec.defaultBackend] : []),
      ];
      expect(backends.length).toBeGreaterThan(0);
      for (const b of backends) {
        expect(runnerServices.has(b.service!.name), `Ingress ${ing.metadata.name} points at runners`).toBe(false);
        expect(b.service!.port.number).not.toBe(3100);
      }
    }

    const policies = ofKind("NetworkPolicy").filter((p) => matches(p.spec?.podSelector?.matchLabels, runnerLabels));
    expect(policies).toHaveLength(1);
    const policy = policies[0]!.spec!;
    expect(policy.policyTypes).toContain("Ingress");
    const rules = policy.ingress as {
      from?: { podSelector?: { matchLabels?: Labels }; namespaceSelector?: unknown; ipBlock?: unknown }[];
      ports?: { port: number | string; protocol?: string }[];
    }[];
    expect(rules.length).toBeGreaterThan(0);
    for (const rule of rules) {
      // A rule without `from` would admit every source; every source must be exactly the web+gateway pods.
      expect(rule.from?.length).toBeGreaterThan(0);
      for (const from of rule.from!) {
        expect(from.namespaceSelector).toBeUndefined();
        expect(from.ipBlock).toBeUndefined();
        expect(matches(from.podSelector?.matchLabels, podLabels(web))).toBe(true);
        expect(matches(from.podSelector?.matchLabels, runnerLabels)).toBe(false);
      }
      expect(rule.ports?.map((p) => p.port)).toEqual([3100]);
    }
  });

  it("gives containers secrets only from the Secret, whose placeholders the app refuses, and a valid configuration otherwise", () => {
    const secrets = ofKind("Secret");
    const configMaps = ofKind("ConfigMap");
    expect(secrets).toHaveLength(1);
    expect(configMaps).toHaveLength(1);
    const secret = secrets[0]!;
    const cm = configMaps[0]!;
    for (const key of ["DATABASE_URL", "CLUSTER_SECRET", "AUTH_SECRET", "SECRETS_KEY"])
      expect(Object.keys(secret.data ?? {})).toContain(key);
    expect(Object.keys(cm.data ?? {}).filter((k) => SECRET_NAME.test(k))).toEqual([]);

    for (const c of [...allContainers(webPod), ...allContainers(runnerPod)]) {
      for (const e of c.env ?? []) {
        if (SECRET_NAME.test(e.name)) {
          expect(e.value, `${c.name}: ${e.name} is a literal`).toBeUndefined();
          expect(e.valueFrom?.secretKeyRef?.name).toBe(secret.metadata.name);
        }
        if (e.valueFrom?.secretKeyRef) expect(e.valueFrom.secretKeyRef.name).toBe(secret.metadata.name);
      }
      const refs = (c.envFrom ?? []).map((f) => f.secretRef?.name ?? f.configMapRef?.name);
      expect(refs.sort()).toEqual([cm.metadata.name, secret.metadata.name].sort());
      // Every pod of a cluster shares one database and one set of secrets.
    }

    // What each workload's process would read: ConfigMap, then Secret, then its own env (downward API values stood in for).
    const decoded = Object.fromEntries(Object.entries(secret.data ?? {}).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]));
    const envFor = (c: Container, secretValues: Record<string, string>) => {
      const env: Record<string, string> = { ...cm.data, ...secretValues };
      for (const e of c.env ?? []) {
        const v =
          e.value ??
          (e.valueFrom?.fieldRef?.fieldPath === "metadata.name"
            ? "switchboard-runner-0"
            : e.valueFrom?.fieldRef
              ? "switchboard"
              : e.valueFrom?.resourceFieldRef
                ? "2"
                : undefined);
        if (v !== undefined) env[e.name] = v.replace(/\$\(([A-Z_][A-Z0-9_]*)\)/g, (m, n: string) => env[n] ?? m);
      }
      return env;
    };
    const real = {
      DATABASE_URL: "postgres://switchboard:s3cret@db.internal:5432/switchboard",
      CLUSTER_SECRET: "c".repeat(40),
      AUTH_SECRET: "a".repeat(40),
      SECRETS_KEY: "k".repeat(40),
    };
    for (const c of [webC, runnerC]) {
      // As rendered: the placeholders stop every process at start-up, naming each secret.
      let refused: unknown;
      try {
        loadConfig(envFor(c, decoded));
      } catch (e) {
        refused = e;
      }
      expect(refused, `${c.name} would start with the placeholder secrets`).toBeInstanceOf(ConfigError);
      for (const key of ["CLUSTER_SECRET", "AUTH_SECRET", "SECRETS_KEY"]) expect((refused as ConfigError).message).toContain(key);
      // With real secrets in their place, everything else is a valid configuration.
      const config = loadConfig(envFor(c, { ...decoded, ...real }));
      expect(config.NODE_ENV).toBe("production");
      expect(config.PUBLIC_URL).toMatch(/^https:\/\//);
      // Every key of the ConfigMap is a setting the app knows (a misspelt one would be ignored silently).
      for (const key of Object.keys(cm.data ?? {})) expect(config, `unknown setting ${key}`).toHaveProperty(key);
    }
    expect(loadConfig(envFor(runnerC, { ...decoded, ...real })).RUNNER_URL).toBe(
      "http://switchboard-runner-0.switchboard-runners.switchboard.svc:3100",
    );
  });

  it("gives the runner container exactly the documented privileges, and nothing else any privilege", () => {
    for (const pod of [webPod, runnerPod]) {
      expect(pod.hostNetwork ?? false).toBe(false);
      expect(pod.hostPID ?? false).toBe(false);
      expect(pod.hostIPC ?? false).toBe(false);
      expect(pod.automountServiceAccountToken).toBe(false);
      for (const v of pod.volumes ?? []) expect(v.hostPath, `volume ${v.name}`).toBeUndefined();
      expect(pod.initContainers ?? []).toEqual([]);
    }
    expect(runnerPod.securityContext ?? {}).toEqual({});
    expect(runnerC.securityContext).toEqual(documentedRunnerSecurityContext());

    // Web+gateway pods: a non-root uid, no escalation, no capability, not privileged.
    const sc = { ...webPod.securityContext, ...webC.securityContext };
    expect(sc.runAsNonRoot).toBe(true);
    expect(sc.runAsUser).not.toBe(0);
    expect(sc.privileged ?? false).toBe(false);
    expect(sc.allowPrivilegeEscalation).toBe(false);
    expect(webC.securityContext?.capabilities?.drop).toContain("ALL");
    expect(webC.securityContext?.capabilities?.add ?? []).toEqual([]);
    expect(sc.procMount ?? "Default").toBe("Default");
  });

  it("sets CPU and memory requests and limits on every container, all of one image", () => {
    const containers = [...allContainers(webPod), ...allContainers(runnerPod)];
    for (const c of containers) {
      for (const kind of ["requests", "limits"] as const) {
        for (const r of ["cpu", "memory"]) expect(c.resources?.[kind]?.[r], `${c.name} ${kind}.${r}`).toBeTruthy();
      }
    }
    // The runner's memory is reserved for the deployments it was promised, above what it offers them.
    expect(runnerC.resources!.requests!.memory).toBe(runnerC.resources!.limits!.memory);
    const mib = (q: string) => Number(/^(\d+)Gi$/.exec(q)?.[1] ?? NaN) * 1024 || Number(/^(\d+)Mi$/.exec(q)?.[1]);
    expect(Number(envOf(runnerC, "RUNNER_CAPACITY_MB")?.value)).toBeLessThan(mib(runnerC.resources!.limits!.memory!));
    expect(new Set(containers.map((c) => c.image)).size).toBe(1);
  });
});
