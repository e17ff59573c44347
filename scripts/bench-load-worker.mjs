// The load generator of the benchmarks, in its own thread so the clients' work never runs on the
// server's event loop: `concurrency` clients each fetch the next path until all are done.
import { parentPort, workerData } from "node:worker_threads";

const { base, paths, concurrency } = workerData;
const times = [];
let errors = 0;
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < paths.length) {
      const path = paths[next++];
      const t = performance.now();
      const res = await fetch(base + path);
      await res.arrayBuffer();
      if (res.status !== 200) errors++;
      times.push(performance.now() - t);
    }
  }),
);
parentPort.postMessage({ times, errors, seconds: (performance.now() - started) / 1000 });
