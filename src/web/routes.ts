import { type RouteConfig, index, route } from "@react-router/dev/routes";

export default [
  index("routes/directory.tsx", { id: "home" }),
  route("servers", "routes/directory.tsx", { id: "servers" }),
  route("docs", "routes/docs.tsx"),
  route("waitlist", "routes/waitlist.tsx"),
  route("login", "routes/login.tsx"),
  route("register", "routes/register.tsx"),
  route("forgot-password", "routes/forgot-password.tsx"),
  route("reset-password", "routes/reset-password.tsx"),
  route("verify-email", "routes/verify-email.tsx"),
  route("profile", "routes/profile.tsx"),
  route("server/:id", "routes/server.tsx"),
  route("server/:owner/:name", "routes/owned-server.tsx"),
  route("servers/server/new", "routes/server-form.tsx", { id: "server-new" }),
  route("servers/server/:owner/:name/edit", "routes/server-form.tsx", { id: "server-edit" }),
  route("servers/apikeys", "routes/api-keys.tsx"),
  route("servers/add", "routes/add-server.tsx"),
  route("admin/mcp-servers", "routes/admin.tsx"),
  route("subscription", "routes/subscription.tsx"),
  route("subscription/test-checkout/:id", "routes/test-checkout.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
