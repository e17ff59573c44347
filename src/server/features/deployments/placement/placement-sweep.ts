import type { Db } from "../../../db/client.js";
import type { Logger } from "../../../log.js";
import {
  deploymentsOn,
  expiredRunners,
  orphaned,
  place,
  removeExpiredRunner,
  removeRunner,
  setDraining,
  unplaced,
  type Placed,
} from "./placement.js";

// Moving deployments between runners (docs/operations.md): the cluster-wide sweep one runner runs
// per interval (runners whose lease ran out lose their deployments to live ones; deployments
// waiting for room are placed), and a runner's own hand-over when it stops cleanly. Each move is
// conditional on the placement the mover saw, so two movers never both move a deployment.

export interface Mover {
  db: Db;
  log: Logger;
  /** the runner doing the moving */
  self: string;
  memoryMb: number;
  leaseMs: number;
  /** the detail of a deployment that waits for a runner with room */
  waiting: string;
}

function placeAgain(
  m: Mover,
  id: string,
  onlyIf: { runnerId: string | null; fence: number },
  exclude?: string,
): Promise<Placed | undefined | "gone"> {
  return place(m.db, id, { memoryMb: m.memoryMb, leaseMs: m.leaseMs, exclude, onlyIf, waiting: m.waiting });
}

/** Moves the deployments of runners whose lease ran out, and places those waiting for room. Resolves with the runners that got something (to wake). */
export async function sweep(m: Mover): Promise<Set<string>> {
  const woken = new Set<string>();
  for (const dead of await expiredRunners(m.db, m.leaseMs)) {
    if (dead.id === m.self) continue;
    const moving = await deploymentsOn(m.db, dead.id);
    m.log.warn({ runner: dead.id, deployments: moving.length }, "runner stopped heartbeating: moving its deployments");
    for (const d of moving) {
      const p = await placeAgain(m, d.id, { runnerId: dead.id, fence: d.fence }, dead.id);
      if (p && p !== "gone") woken.add(p.runnerId);
    }
    await removeExpiredRunner(m.db, dead.id, m.leaseMs);
  }
  const waiting: { id: string; runnerId: string | null; fence: number }[] = [
    ...(await unplaced(m.db)).map((d) => ({ ...d, runnerId: null })),
    ...(await orphaned(m.db)),
  ];
  for (const d of waiting) {
    const p = await placeAgain(m, d.id, { runnerId: d.runnerId, fence: d.fence });
    if (p && p !== "gone") woken.add(p.runnerId);
  }
  return woken;
}

/**
 * A clean stop of runner `m.self` (its `held` deployments, each under its fencing number): no new
 * deployments come to it; `stopAll` stops every child here at once (a Kubernetes grace period is
 * short), then each is placed on another runner. Resolves with the runners that got one (to wake).
 */
export async function handOver(
  m: Mover,
  instance: string,
  held: [id: string, fence: number][],
  stopAll: () => Promise<void>,
): Promise<Set<string>> {
  await setDraining(m.db, m.self);
  const moved = new Set<string>();
  await stopAll();
  for (const [id, fence] of held) {
    const p = await placeAgain(m, id, { runnerId: m.self, fence }, m.self).catch(
      (e: unknown) => void m.log.error({ err: e, deployment: id }, "could not hand a deployment over"),
    );
    if (p && p !== "gone") moved.add(p.runnerId);
  }
  await removeRunner(m.db, m.self, instance);
  m.log.info({ runners: [...moved] }, "deployments handed over");
  return moved;
}
