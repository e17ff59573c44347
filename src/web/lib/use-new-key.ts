import { useState } from "react";
import type { NewKey } from "../components/HostedConnect";

/**
 * The key a server page's first load brought (lib/new-key-flash.server.ts), kept while the viewer
 * stays on that server's page: the page's later loads (after Deploy, Stop, ...) no longer carry it.
 */
export function useNewKey(fromLoader: NewKey | null | undefined, serverId: string): NewKey | null {
  const [kept, setKept] = useState<{ serverId: string; key: NewKey } | null>(fromLoader ? { serverId, key: fromLoader } : null);
  if (fromLoader && kept?.key.value !== fromLoader.value) setKept({ serverId, key: fromLoader });
  return kept?.serverId === serverId ? kept.key : null;
}
