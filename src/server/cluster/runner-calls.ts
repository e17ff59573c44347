import { CLUSTER_HEADER } from "../features/gateway/index.js";

// Calls from any process to a runner's internal port (cluster/runner-server.ts), authenticated
// with the cluster secret: stop a deployment there, read its output. Waking a runner goes over
// the bus, so it needs no address.

const TIMEOUT_MS = 15_000;

/** The lifecycle's RunnerCalls (features/deployments/lifecycle.ts), over HTTP. */
export interface RunnerHttpCalls {
  stop(url: string, id: string): Promise<void>;
  logs(url: string, id: string): Promise<string[] | null>;
  wake(runnerId: string): void;
}

export function runnerCalls(secret: string | undefined, wake: (runnerId: string) => void): RunnerHttpCalls {
  const call = async (url: string, path: string, method: string) => {
    if (!secret) throw new Error("CLUSTER_SECRET is not set: this process cannot reach other runners");
    const r = await fetch(new URL(path, url), { method, headers: { [CLUSTER_HEADER]: secret }, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!r.ok) throw new Error(`runner answered ${r.status}`);
    return r;
  };
  return {
    async stop(url, id) {
      await call(url, `/internal/deployments/${id}/stop`, "POST");
    },
    async logs(url, id) {
      const r = await call(url, `/internal/deployments/${id}/logs`, "GET");
      return ((await r.json()) as { lines: string[] | null }).lines;
    },
    wake,
  };
}
