import type { Config } from "@react-router/dev/config";

export default {
  appDirectory: "src/web",
  buildDirectory: "build",
  ssr: true,
  // The browser loads the whole route manifest (one cached file, ~23 kB) with its first page
  // instead of discovering routes as links appear: with some thirty routes that is cheap, it saves
  // a /__manifest request per new link, and the server no longer works out a partial manifest
  // for every page it renders (~4% of a server page's CPU in a profile).
  routeDiscovery: { mode: "initial" },
  // Loaders and actions get the request as it came, not two normalised copies of it each (every
  // copy a new fetch Request: ~5% of a server page's CPU). They read the address from their `url`
  // argument, which React Router normalises (no `.data` suffix, no `_routes` or `index` parameters).
  future: { v8_passThroughRequests: true },
} satisfies Config;
