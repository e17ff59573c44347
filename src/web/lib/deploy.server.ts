import { data, redirect, type AppLoadContext } from "react-router";
import { CONNECTION_TEXT, type ConnectionView } from "../../shared/connections";
import { ALERTS_TEXT, alertSettingsInput, type AlertsPage } from "../../shared/alerts";
import { DOMAIN_TEXT, domainInput, type DomainsPage, type DomainView } from "../../shared/domains";
import { DEPLOY_TEXT, deployRequest, missingKeys, type DeploymentView } from "../../shared/deployments";
import { field, isEnhanced } from "./actions.server";
import type { DeployAnswer } from "./deploy-types";
import { formMessage } from "./validation";

/** The viewer's deployment of one server, for the page's first paint (the panel polls it afterwards). */
export async function viewerDeployment(context: AppLoadContext, serverId: string, owner = ""): Promise<DeploymentView | null> {
  if (!context.viewer) return null;
  const r = await context.api<{ deployments: DeploymentView[] }>(
    "GET",
    `/api/deployments/server/${serverId}?owner=${encodeURIComponent(owner)}`,
  );
  return r.ok ? (r.data.deployments[0] ?? null) : null;
}

/**
 * The Deployment panel's posts on a server's page: Deploy with the keys typed in (fields
 * `env:<NAME>`) and the optional command, Stop Server, and the owner's choice of exposed tools.
 * Each is the API's own call, with the panel's messages.
 */
export async function deploymentAction(
  context: AppLoadContext,
  request: Request,
  /** the page the form posted to, as React Router normalised it */
  url: URL,
  server: {
    id: string;
    requiredKeys: readonly { key: string; env_var: string }[];
    repositoryUrl: string | null;
    npxCommand: string | null;
  },
) {
  const form = await request.formData();
  const intent = field(form, "intent");
  // Without JavaScript a success goes back to the page (which shows the new state), so reloading it posts nothing again.
  // (with the owner it was for: the page shows that owner's deployment)
  const as = field(form, "owner");
  const page = as ? `${url.pathname}?as=${encodeURIComponent(as)}` : url.pathname;
  const answer = (a: Omit<DeployAnswer, "form" | "intent">) =>
    !a.error && !isEnhanced(form) ? redirect(page, 303) : data({ form: formOf(intent), intent, ...a } satisfies DeployAnswer);
  if (!context.viewer) throw redirect(`/login?redirect=${encodeURIComponent(`/server/${server.id}`)}`);

  if (intent === "stop") {
    const r = await context.api("DELETE", `/api/deployments/${encodeURIComponent(field(form, "deployment"))}`);
    return r.ok
      ? answer({ deployment: null, message: DEPLOY_TEXT.stopped })
      : answer({ error: r.error ?? (r.status ? DEPLOY_TEXT.undeployFailed : DEPLOY_TEXT.undeployFailedDefault) });
  }
  if (intent === "restart" || intent === "keys") {
    const id = encodeURIComponent(field(form, "deployment"));
    const r =
      intent === "restart"
        ? await context.api<{ message: string; deploymentInfo: DeploymentView }>("POST", `/api/deployments/${id}/restart`, undefined, {
            timeoutMs: 30_000,
          })
        : await context.api<{ message: string; deploymentInfo: DeploymentView }>(
            "PUT",
            `/api/deployments/${id}/env`,
            { env: typedKeys(form) },
            { timeoutMs: 30_000 },
          );
    return r.ok
      ? answer({ deployment: r.data.deploymentInfo, message: r.data.message })
      : answer({ error: r.error ?? DEPLOY_TEXT.restartFailed });
  }
  if (intent === "keep-awake") {
    const id = encodeURIComponent(field(form, "deployment"));
    const r = await context.api<{ message: string }>("PUT", `/api/deployments/${id}/sleep`, { keep_awake: field(form, "keep") === "1" });
    // The panel's next poll shows the new setting.
    return r.ok ? answer({ message: r.data.message }) : answer({ error: r.error ?? DEPLOY_TEXT.deployFailedDefault });
  }
  if (intent === "tools") {
    const tools = form.getAll("tool").map(String);
    const shown = new Set(form.getAll("show").map(String));
    const r = await context.api<{ hidden_tools: string[] }>(
      "PUT",
      `/api/deployments/${encodeURIComponent(field(form, "deployment"))}/tools`,
      { hidden: tools.filter((t) => !shown.has(t)) },
    );
    return r.ok ? answer({ message: DEPLOY_TEXT.toolsSaved }) : answer({ error: r.error ?? DEPLOY_TEXT.deployFailedDefault });
  }

  if (intent === "alert-settings" || intent === "alert-test") return answer(await alertAction(context, form, intent));
  if (intent === "domain-add" || intent === "domain-verify" || intent === "domain-remove")
    return answer(await domainAction(context, form, intent));

  if (intent === "sign-in") {
    const r = await context.api<{ authorize_url: string }>(
      "POST",
      `/api/connections/${encodeURIComponent(field(form, "connection"))}/authorize`,
      undefined,
      { timeoutMs: 60_000 },
    );
    if (r.ok) throw redirect(r.data.authorize_url, 303);
    return answer({ error: r.error ?? CONNECTION_TEXT.notFound });
  }

  const env = typedKeys(form);
  if (intent === "connect") {
    // A catalogue entry its publisher hosts: a connection with the entry's keys (sent as headers).
    const missing = missingKeys(server.requiredKeys, env);
    if (missing.length) return answer({ error: DEPLOY_TEXT.missingKeys(missing) });
    const oauth = field(form, "oauth") === "on" ? true : undefined;
    const r = await context.api<{ connection: ConnectionView; authorize_url?: string }>(
      "POST",
      "/api/connections",
      { server_id: server.id, env, oauth },
      { timeoutMs: 60_000 },
    );
    // Signing in with OAuth: the browser goes to the server's consent, and comes back to make the connection.
    if (r.ok && r.data.authorize_url) throw redirect(r.data.authorize_url, 303);
    return r.ok
      ? answer({ deployment: r.data.connection, message: CONNECTION_TEXT.connected })
      : answer({ error: r.error ?? DEPLOY_TEXT.deployFailedDefault });
  }
  const command = field(form, "command").trim();
  const body = { repositoryUrl: server.repositoryUrl, env, npx_command: command || server.npxCommand, ...(as ? { owner: as } : {}) };
  // The same rules as the API: every required key filled in, then the body's own checks.
  const input = deployRequest(server.requiredKeys).safeParse(body);
  if (!input.success) return answer({ error: formMessage(input.error) });
  const r = await context.api<{ deploymentInfo: DeploymentView }>("POST", `/api/deploy/${server.id}`, body, { timeoutMs: 30_000 });
  return r.ok
    ? answer({ deployment: r.data.deploymentInfo })
    : answer({ error: r.error ?? (r.status ? DEPLOY_TEXT.deployFailed : DEPLOY_TEXT.deployFailedDefault) });
}

/** Which of the page's forms an answer belongs to (its messages show there). */
function formOf(intent: string): DeployAnswer["form"] {
  if (intent === "tools") return "tools";
  if (intent === "alert-settings") return "alerts";
  if (intent === "alert-test") return "alert-test";
  if (intent.startsWith("domain-")) return "domains";
  return "deploy";
}

/** The deployment's alerts for the page's first paint (its owner's; null when they cannot be read). */
export async function viewerAlerts(context: AppLoadContext, deploymentId: string | undefined): Promise<AlertsPage | null> {
  if (!context.viewer || !deploymentId) return null;
  const r = await context.api<AlertsPage>("GET", `/api/deployments/${encodeURIComponent(deploymentId)}/alerts`);
  return r.ok ? r.data : null;
}

/** Monitoring & alerts: save the settings (the API's own rules), or send a test alert. */
async function alertAction(context: AppLoadContext, form: FormData, intent: "alert-settings" | "alert-test") {
  const id = encodeURIComponent(field(form, "deployment"));
  if (intent === "alert-test") {
    const r = await context.api<{ message: string }>("POST", `/api/deployments/${id}/alerts/test`, undefined, { timeoutMs: 30_000 });
    const alerts = await viewerAlerts(context, field(form, "deployment"));
    return r.ok
      ? { message: r.data.message, alerts: alerts ?? undefined }
      : { error: r.error ?? ALERTS_TEXT.testFailed, alerts: alerts ?? undefined };
  }
  const input = alertSettingsInput.safeParse({
    email: field(form, "email") === "on",
    error_rate_pct: field(form, "error_rate_pct"),
    p95_ms: field(form, "p95_ms"),
  });
  if (!input.success) return { error: formMessage(input.error) };
  const r = await context.api<AlertsPage>("PUT", `/api/deployments/${id}/alerts`, input.data);
  return r.ok ? { message: ALERTS_TEXT.saved, alerts: r.data } : { error: r.error ?? ALERTS_TEXT.loadFailed };
}

/** The deployment's custom domains for the page's first paint (its owner's; null when they cannot be read). */
export async function viewerDomains(context: AppLoadContext, deploymentId: string | undefined): Promise<DomainsPage | null> {
  if (!context.viewer || !deploymentId) return null;
  const r = await context.api<DomainsPage>("GET", `/api/deployments/${encodeURIComponent(deploymentId)}/domains`);
  return r.ok ? r.data : null;
}

/** Custom domains: add one (the API's own rules), verify its TXT record, or remove it. */
async function domainAction(context: AppLoadContext, form: FormData, intent: "domain-add" | "domain-verify" | "domain-remove") {
  const deployment = field(form, "deployment");
  const base = `/api/deployments/${encodeURIComponent(deployment)}/domains`;
  const after = async (a: { message?: string; error?: string }) => ({
    ...a,
    domains: (await viewerDomains(context, deployment)) ?? undefined,
  });
  if (intent === "domain-add") {
    const input = domainInput.safeParse({ domain: field(form, "domain") });
    if (!input.success) return after({ error: formMessage(input.error) });
    const r = await context.api<DomainView>("POST", base, input.data);
    return after(r.ok ? { message: DOMAIN_TEXT.added(r.data.domain) } : { error: r.error ?? DOMAIN_TEXT.invalid });
  }
  const domain = field(form, "domain");
  const path = `${base}/${encodeURIComponent(domain)}`;
  if (intent === "domain-verify") {
    const r = await context.api<DomainView>("POST", `${path}/verify`, undefined, { timeoutMs: 30_000 });
    return after(r.ok ? { message: DOMAIN_TEXT.verified(r.data.domain) } : { error: r.error ?? DOMAIN_TEXT.dnsFailed });
  }
  const r = await context.api("DELETE", path);
  return after(r.ok ? { message: DOMAIN_TEXT.removed(domain) } : { error: r.error ?? DOMAIN_TEXT.notFound });
}

/** The keys typed into the panel's `env:<NAME>` fields (empty ones left out). */
function typedKeys(form: FormData): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of form) if (name.startsWith("env:") && typeof value === "string" && value !== "") env[name.slice(4)] = value;
  return env;
}
