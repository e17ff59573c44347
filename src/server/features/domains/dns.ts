import { Resolver } from "node:dns/promises";

// The TXT records a domain's owner publishes to prove control of it, read through the resolvers
// CUSTOM_DOMAIN_RESOLVERS names (empty: the system's), with a short timeout and no cache of ours.

export type TxtLookup = (name: string) => Promise<string[] | "missing" | "failed">;

export function txtLookup(resolvers: readonly string[], timeoutMs = 3000): TxtLookup {
  return async (name) => {
    const r = new Resolver({ timeout: timeoutMs, tries: 2 });
    if (resolvers.length) r.setServers([...resolvers]);
    try {
      // A record may be split into several strings: they are one value.
      return (await r.resolveTxt(name)).map((parts) => parts.join(""));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return code === "ENOTFOUND" || code === "ENODATA" || code === "NOTFOUND" || code === "NODATA" ? "missing" : "failed";
    } finally {
      r.cancel();
    }
  };
}
