import { vi } from "vitest";

// Waiting in tests, on vitest's own vi.waitFor: one place says how a test waits for something
// that happens in another process (a deployment starting, a mail arriving, a flush).

/** Thrown by a probe of waitFor: stop waiting, this will not change. */
export class Fatal extends Error {}

const NOT_YET = new Error("not yet");

/**
 * Polls `probe` until it returns something other than undefined; the error says what was last seen.
 * A probe that throws is tried again (its error is the one reported), except a Fatal, which ends the wait.
 */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 100): Promise<T> {
  let last: unknown;
  let fatal: Fatal | undefined;
  try {
    return await vi
      .waitFor(
        async () => {
          if (fatal) return undefined as T;
          try {
            const v = await probe();
            if (v !== undefined) return v;
            last = undefined;
          } catch (e) {
            if (e instanceof Fatal) {
              fatal = e;
              return undefined as T;
            }
            last = e;
          }
          throw NOT_YET;
        },
        { timeout: timeoutMs, interval: everyMs },
      )
      .then((v) => {
        if (fatal) throw fatal;
        return v;
      });
  } catch (e) {
    if (e instanceof Fatal) throw e;
    throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ""}`);
  }
}

/**
 * Polls `what` until `ok` holds and returns that value; at the timeout, returns the last value seen,
 * so the test's own expect says what it was. An error thrown by `what` ends the wait at once.
 */
export async function until<T>(what: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000, everyMs = 100): Promise<T> {
  let last!: T;
  let failed: { e: unknown } | undefined;
  await vi
    .waitFor(
      async () => {
        if (failed) return;
        try {
          last = await what();
        } catch (e) {
          failed = { e };
          return;
        }
        if (!ok(last)) throw NOT_YET;
      },
      { timeout: timeoutMs, interval: everyMs },
    )
    .catch(() => {});
  if (failed) throw failed.e;
  return last;
}
