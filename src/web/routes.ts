import { type RouteConfig, index, route } from "@react-router/dev/routes";

export default [
  index("routes/directory.tsx", { id: "home" }),
  route("servers", "routes/directory.tsx", { id: "servers" }),
  route("docs", "routes/docs.tsx"),
  route("waitlist", "routes/waitlist.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
