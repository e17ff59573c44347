import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";
import type { Logger } from "../../log.js";
import type { MetricsSource } from "./routes.js";

// Several worker processes on one machine (WORKERS > 1): each process counts what it does, and a
// scrape must see them all. The primary (which holds the runner, so the gateway calls, sessions,
// restarts and installs) asks every worker for its figures over Node's cluster IPC and adds them up
// (counters and histograms summed; figures read from the database taken once). A worker asked on
// the public port hands the scrape to the primary, so whichever worker takes the connection, the
// answer is the machine's. Without workers this is just the process's own registry.

const COLLECT = "switchboard:metrics:collect";
const COLLECTED = "switchboard:metrics:collected";
const SCRAPE = "switchboard:metrics:scrape";
const SCRAPED = "switchboard:metrics:scraped";
const TIMEOUT_MS = 3000;

interface Msg {
  type?: string;
  id?: number;
  metrics?: object[];
  text?: string;
}

export interface ClusterSource extends MetricsSource {
  close(): void;
}

let nextId = 0;

export function clusterSource(registry: Registry, log: Logger): ClusterSource {
  if (cluster.isWorker) return workerSource(registry, log);
  return primarySource(registry, log);
}

/** The primary (or a process on its own): its registry plus every connected worker's. */
function primarySource(registry: Registry, log: Logger): ClusterSource {
  const pending = new Map<number, { left: number; got: object[][]; done: () => void }>();
  const text = async (): Promise<string> => {
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => Boolean(w?.isConnected()));
    if (workers.length === 0) return registry.metrics();
    const id = nextId++;
    const got: object[][] = [await registry.getMetricsAsJSON()];
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        log.warn({ missing: pending.get(id)?.left }, "metrics: a worker did not answer in time; its figures are left out");
        resolve();
      }, TIMEOUT_MS);
      pending.set(id, { left: workers.length, got, done: () => (clearTimeout(timer), resolve()) });
      for (const w of workers) w.send({ type: COLLECT, id });
    });
    pending.delete(id);
    return AggregatorRegistry.aggregate(got).metrics();
  };
  const onMessage = (worker: Worker, m: Msg) => {
    if (m?.type === COLLECTED && m.id !== undefined) {
      const p = pending.get(m.id);
      if (!p) return;
      p.got.push(m.metrics ?? []);
      if (--p.left === 0) p.done();
    } else if (m?.type === SCRAPE && m.id !== undefined) {
      text().then(
        (t) => worker.isConnected() && worker.send({ type: SCRAPED, id: m.id, text: t }),
        (e: unknown) => log.error({ err: e }, "metrics: could not gather the workers' figures"),
      );
    }
  };
  cluster.on("message", onMessage);
  return { text, contentType: registry.contentType, close: () => void cluster.off("message", onMessage) };
}

/** A worker: answers the primary's collection, and hands public scrapes to the primary. */
function workerSource(registry: Registry, log: Logger): ClusterSource {
  const waiting = new Map<number, (text: string | undefined) => void>();
  const onMessage = (m: Msg) => {
    if (m?.type === COLLECT && m.id !== undefined) {
      void registry.getMetricsAsJSON().then((metrics) => process.send?.({ type: COLLECTED, id: m.id, metrics }));
    } else if (m?.type === SCRAPED && m.id !== undefined) {
      waiting.get(m.id)?.(m.text);
    }
  };
  process.on("message", onMessage);
  const text = async (): Promise<string> => {
    const id = nextId++;
    const whole = await new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), TIMEOUT_MS);
      waiting.set(id, (t) => (clearTimeout(timer), resolve(t)));
      process.send?.({ type: SCRAPE, id });
    });
    waiting.delete(id);
    if (whole !== undefined) return whole;
    log.warn("metrics: the primary process did not answer; this worker's own figures only");
    return registry.metrics();
  };
  return { text, contentType: registry.contentType, close: () => void process.off("message", onMessage) };
}
