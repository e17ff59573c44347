import type { DefinitionKind } from "~/shared/definitions.js";
import type { Definition } from "../deployments/definitions/definitions.js";
import type { Bus } from "../../cluster/bus.js";
import type { Logger } from "../../log.js";
import { publish, TOPICS } from "../../cluster/topics.js";
import { TargetExposure } from "./exposure.js";
import type { GatewayTarget, PinsPort } from "./repo.js";

// Each looked-up deployment's exposure rules (exposure.ts), and what its listings showed recorded
// through the PinsPort, off the request path.

export interface TargetExposuresDeps {
  log: Logger;
  pins: PinsPort;
  /** the admission's cache of proxy id -> deployment: a recorded listing makes it look again */
  forget(proxyId: string): void;
  bus?: Pick<Bus, "publish">;
}

export class TargetExposures {
  /** each looked-up target's exposure rules, made once per lookup */
  private readonly exposures = new WeakMap<GatewayTarget, TargetExposure>();
  /** listings being recorded (deployment and kind): one write at a time each */
  private readonly recording = new Set<string>();

  constructor(private readonly d: TargetExposuresDeps) {}

  /** The deployment's exposure rules (hidden tools, pinned definitions) for the Mux. */
  of(target: GatewayTarget): TargetExposure {
    let e = this.exposures.get(target);
    if (!e) {
      e = new TargetExposure(target, (t, kind, defs, complete) => this.noteListing(t, kind, defs, complete));
      this.exposures.set(target, e);
    }
    return e;
  }

  /**
   * A listing showed definitions the database does not have as current (or the kind's first):
   * recorded off the request path; when that wrote anything, every gateway looks again and open
   * sessions list again (the owner's page shows the change).
   */
  private noteListing(target: GatewayTarget, kind: DefinitionKind, defs: Definition[], complete: boolean) {
    const key = `${target.id}:${kind}`;
    if (this.recording.has(key)) return;
    this.recording.add(key);
    this.d.pins
      .record(target, kind, defs, complete)
      .then(async (wrote: boolean) => {
        if (!wrote) return;
        this.d.forget(target.proxyId);
        if (this.d.bus) await publish(this.d.bus, TOPICS.exposure, { id: target.id, proxyId: target.proxyId, quiet: true });
      })
      .catch((e: unknown) => this.d.log.error({ err: e, deployment: target.id }, "could not record a listing's definitions"))
      .finally(() => this.recording.delete(key));
  }
}
