// The load generator of the benchmarks, in its own thread so the clients' work never runs on the
// server's event loop: `concurrency` clients each fetch the next path until all are done, over
// kept-alive connections. On this 2-core machine the clients share the cores with the server, so
// they use node:http, which costs a fraction of fetch()'s CPU a request (BENCH_CLIENT=fetch
// measures with fetch() as before, to compare).
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";

const { base, paths, concurrency, client } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });

/** One GET: its status once the whole body has arrived. */
function get(url) {
  if (client === "fetch") return fetch(url).then(async (res) => (await res.arrayBuffer(), res.status));
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.on("data", () => {});
        res.on("end", () => resolve(res.statusCode));
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

const times = [];
let errors = 0;
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < paths.length) {
      const path = paths[next++];
      const t = performance.now();
      const status = await get(base + path).catch(() => 0);
      if (status !== 200) errors++;
      times.push(performance.now() - t);
    }
  }),
);
agent.destroy();
parentPort.postMessage({ times, errors, seconds: (performance.now() - started) / 1000 });
