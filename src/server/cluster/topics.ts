import { z } from "zod";
import { RESYNC, type Bus } from "./bus.js";

// Every message that crosses processes, declared once: its topic on the bus and what its payload
// must be. Publishers and subscribers go through publish() and subscribe() here, so nobody writes
// or parses a payload by hand, and a malformed one (or a gap in the bus) reaches a subscriber as
// null: start over.

export interface Topic<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly schema: S;
}

/** A message with nothing to say but that it happened (its payload on the wire is empty). */
const SIGNAL = z.literal(true);
type Signal = Topic<typeof SIGNAL>;

const topic = <S extends z.ZodType>(name: string, schema: S): Topic<S> => ({ name, schema });

export const TOPICS = {
  /**
   * What a deployment exposes changed: its owner's tool selection or decision on changed
   * definitions, or (`quiet`) a listing that pinned or recorded definitions. Every gateway looks
   * the deployment up again; all but quiet ones tell its open sessions to list again.
   */
  exposure: topic("deployment-tools", z.object({ id: z.string().min(1), proxyId: z.string().min(1), quiet: z.boolean().default(false) })),
  /** A catalogue write committed: every process clears its catalogue cache. */
  catalog: topic("catalog", SIGNAL),
  /** An API key or OAuth grant stopped being valid: every cache of verified credentials starts over. */
  revocations: topic("revocations", SIGNAL),
  /** Something was placed on this runner: it reconciles now rather than at its next heartbeat. */
  runnerWake: (runnerId: string): Signal => topic(`runner:${runnerId}`, SIGNAL),
} as const;

export type ExposureChange = z.output<(typeof TOPICS)["exposure"]["schema"]>;

/** Tells every process (see Bus.publish: settles once they all heard, never rejects). */
export function publish<S extends z.ZodType>(bus: Pick<Bus, "publish">, t: Topic<S>, payload: z.input<S>): Promise<void> {
  const value = t.schema.parse(payload);
  return bus.publish(t.name, value === true ? "" : JSON.stringify(value));
}

/** A signal topic's message. */
export const signal = (bus: Pick<Bus, "publish">, t: Signal) => publish(bus, t, true);

/** `cb` runs for every message of the topic, with null after a gap in the bus or for a payload that is not the topic's (start over). */
export function subscribe<S extends z.ZodType>(
  bus: Pick<Bus, "subscribe">,
  t: Topic<S>,
  cb: (message: z.output<S> | null) => void,
): () => void {
  return bus.subscribe(t.name, (raw) => cb(decode(t, raw)));
}

function decode<S extends z.ZodType>(t: Topic<S>, raw: string): z.output<S> | null {
  if (raw === RESYNC) return null;
  let value: unknown = true;
  if (raw !== "") {
    try {
      value = JSON.parse(raw);
    } catch {
      return null;
    }
  }
  const r = t.schema.safeParse(value);
  return r.success ? r.data : null;
}
