import { claimRun } from "../../../cluster/jobs.js";
import type { Db } from "../../../db/client.js";
import type { Logger } from "../../../log.js";
import { deployabilityOf } from "../deployability.js";
import { seedCheckUnderWay, uncheckedSeeds } from "../definitions/listings.js";

// The demo catalogue checked (docs/product.md#works-here): after start-up, the platform checks its
// own seeded entries that can run here ('Check now', checks.ts), one at a time across the cluster,
// once the sandbox is complete. Being the platform's own (listings.ts trustedSeed), their listings
// are public without an admin, so a fresh install's pages show tools and 'Works here' finds them.
// Every web process ticks; a check starts only while none of a seeded entry is under way anywhere,
// and only by the process that claimed the tick (cluster/jobs.ts). An entry with an outcome is
// never checked again by this job, so restarts and further processes change nothing.

export const SEED_CHECK_JOB = "seed-checks";
const TICK_MS = 5000;

export interface SeedCheckDeps {
  db: Db;
  log: Logger;
  config: { SEED_CHECKS: "on" | "off"; GIT_ALLOW_FILE: "on" | "off" };
  /** every guarantee of the sandbox holds where the checks would run (lifecycle.sandbox) */
  sandboxComplete: () => boolean;
  /** starts the platform's check of an entry (CatalogChecks.start) */
  check: (entryId: string) => Promise<void>;
  /** how often each process looks (default 5 s) */
  tickMs?: number;
}

export class SeedChecks {
  private timer?: NodeJS.Timeout;
  private busy = false;
  /** Entries this process started (or tried to): never twice from here, whatever the start said. */
  private readonly tried = new Set<string>();
  private toldIncomplete = false;

  constructor(private readonly d: SeedCheckDeps) {}

  private get tickMs(): number {
    return this.d.tickMs ?? TICK_MS;
  }

  /** Once the platform listens: the first look is a tick later, so start-up is not held by it. */
  start(): void {
    if (this.d.config.SEED_CHECKS !== "on" || this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.tickMs).unref();
  }

  /** One look: the entry whose check it started, "done" when none is left to check, else undefined. */
  async tick(): Promise<string | "done" | undefined> {
    if (this.busy) return undefined;
    this.busy = true;
    try {
      return await this.next();
    } catch (e) {
      this.d.log.warn({ err: e }, "demo catalogue check: could not start one");
      return undefined;
    } finally {
      this.busy = false;
    }
  }

  private async next(): Promise<string | "done" | undefined> {
    if (!this.d.sandboxComplete()) {
      if (!this.toldIncomplete) this.d.log.info("demo catalogue not checked yet: the hosting sandbox is incomplete");
      this.toldIncomplete = true;
      return undefined;
    }
    const allowFileGit = this.d.config.GIT_ALLOW_FILE === "on";
    const next = (await uncheckedSeeds(this.d.db)).find(
      (e) => !this.tried.has(e.id) && deployabilityOf(e, { allowFileGit }).kind === "deployable",
    );
    if (!next) {
      this.close();
      this.d.log.info("demo catalogue checked: every entry that can run here has been checked");
      return "done";
    }
    if (await seedCheckUnderWay(this.d.db)) return undefined;
    if (!(await claimRun(this.d.db, SEED_CHECK_JOB, this.tickMs))) return undefined;
    this.tried.add(next.id);
    this.d.log.info({ entry: next.id }, "demo catalogue: checking an entry");
    // One that fails records its outcome itself (checks.ts); one another check holds is left to it.
    await this.d
      .check(next.id)
      .catch((e: unknown) => this.d.log.info({ entry: next.id, why: (e as Error).message }, "demo check not started"));
    return next.id;
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
