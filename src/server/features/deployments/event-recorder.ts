import type { Db } from "../../db/client.js";
import type { RunnerEvent } from "../runtime/runner.js";
import { recordStartListing } from "./definitions/definitions-repo.js";
import { saveListing } from "./definitions/listings.js";
import type { fencedUpdate } from "./placement/placement.js";
import { findDeployment } from "./repo.js";

// A runner's events as deployment statuses (docs/hosting.md#statuses): each becomes a write of the
// deployment's row under the placement this runner holds, so a runner that lost its lease writes
// nothing. A start's listing is saved (and compared with the pins) before the row says running.

export type RowFields = Parameters<typeof fencedUpdate>[3];

/** What the recorder needs of the runner agent that holds the deployments. */
export interface RecorderPort {
  db: Db;
  /** this runner's id */
  runnerId: string;
  /** the fencing number this runner holds the deployment under, if it holds it */
  fenceOf(id: string): number | undefined;
  /** a fenced write of the deployment's row (false when the lease is gone) */
  write(id: string, fields: RowFields, extra?: { restarts?: true }): Promise<boolean>;
  /** the deployment's process started (the watchdog follows it) or ended */
  spawned(id: string, pid: number): void;
  exited(id: string): void;
  /** the deployment's pinned definitions changed: every gateway looks them up again */
  announce?: (id: string, proxyId: string) => void;
}

export async function recordEvent(p: RecorderPort, id: string, e: RunnerEvent): Promise<void> {
  switch (e.type) {
    case "installing":
      await p.write(id, { status: "installing", statusDetail: null, exitCode: null });
      return;
    case "starting":
      await p.write(id, { status: "starting" });
      return;
    case "spawned":
      p.spawned(id, e.pid);
      await p.write(id, { pid: e.pid, pidStart: e.pidStart });
      return;
    case "running": {
      const row = await findDeployment(p.db, id);
      if (row && e.listing && row.runnerId === p.runnerId && row.fence === p.fenceOf(id)) {
        await saveListing(p.db, row, e.listing);
        // Its definitions compared with the pinned ones (the first listing pins them); gateways then look again.
        if (await recordStartListing(p.db, row, e.listing)) p.announce?.(row.id, row.proxyId);
      }
      await p.write(id, { status: "running", statusDetail: null, exitCode: null, startedAt: new Date() });
      return;
    }
    case "failed":
      p.exited(id);
      await p.write(id, { status: "failed", statusDetail: e.detail, exitCode: e.code, pid: null, pidStart: null });
      return;
    case "crashed":
      p.exited(id);
      await p.write(
        id,
        { status: e.looping ? "crash_looping" : "crashed", statusDetail: e.detail, exitCode: e.exit.code, pid: null, pidStart: null },
        { restarts: true },
      );
      return;
  }
}
