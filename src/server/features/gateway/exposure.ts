import { DEFINITION_TEXT, LISTINGS, type DefinitionKind } from "~/shared/definitions.js";
import { definitionOf, listedItems, type Definition } from "../deployments/definitions/definitions.js";
import { RPC } from "./protocol.js";
import type { GatewayTarget } from "./repo.js";

// What a deployment's clients may see and call (docs/gateway.md#exposed-tools and
// #pinned-definitions): the tools its owner hid, and the tool, prompt and resource-template
// definitions that changed since the owner approved them. The Mux asks before forwarding a
// request, and has every listing's answer shaped before the client gets it.

export interface Refusal {
  code: number;
  message: string;
}

/** How the Mux applies a deployment's exposure rules. */
export interface Exposure {
  /** Why this request may not reach the server, or undefined. */
  refusal(method: string | undefined, params: Record<string, unknown> | undefined): Refusal | undefined;
  /** For a listing request, what turns the server's answer into the client's. */
  shaper(method: string | undefined, params: Record<string, unknown> | undefined): ((result: unknown) => unknown) | undefined;
}

/** Nothing hidden, nothing pinned: the platform's own tests of the Mux use it. */
export const EXPOSE_ALL: Exposure = { refusal: () => undefined, shaper: () => undefined };

const KIND_OF_LISTING: Record<string, DefinitionKind> = {
  "tools/list": "tool",
  "prompts/list": "prompt",
  "resources/templates/list": "resource_template",
};

/** Told of listed definitions not yet recorded (the first ones of a kind pin it). */
export type RecordListing = (target: GatewayTarget, kind: DefinitionKind, defs: Definition[], complete: boolean) => void;

const clipName = (v: unknown) => String(v).slice(0, 200);

export class TargetExposure implements Exposure {
  constructor(
    private readonly target: GatewayTarget,
    private readonly record: RecordListing,
  ) {}

  refusal(method: string | undefined, params: Record<string, unknown> | undefined): Refusal | undefined {
    const { hiddenTools, review } = this.target;
    if (method === "tools/call") {
      const name = String(params?.name);
      // Hidden tools are unknown to clients: the refusal reveals nothing more.
      if (hiddenTools.has(name)) return { code: RPC.invalidParams, message: `Unknown tool: ${clipName(name)}` };
      const why = review.refusal("tool", name);
      if (why === "unknown") return { code: RPC.invalidParams, message: `Unknown tool: ${clipName(name)}` };
      if (why === "withheld") return { code: RPC.invalidParams, message: DEFINITION_TEXT.withheldTool(clipName(name)) };
    }
    if (method === "prompts/get") {
      const name = String(params?.name);
      const why = review.refusal("prompt", name);
      if (why === "unknown") return { code: RPC.invalidParams, message: `Unknown prompt: ${clipName(name)}` };
      if (why === "withheld") return { code: RPC.invalidParams, message: DEFINITION_TEXT.withheldPrompt(clipName(name)) };
    }
    return undefined;
  }

  shaper(method: string | undefined, params: Record<string, unknown> | undefined): ((result: unknown) => unknown) | undefined {
    const kind = method === undefined ? undefined : KIND_OF_LISTING[method];
    if (!kind) return undefined;
    const firstPage = params?.cursor === undefined;
    return (result) => this.shape(kind, result, firstPage);
  }

  private shape(kind: DefinitionKind, result: unknown, firstPage: boolean): unknown {
    const items = listedItems(kind, result);
    if (!items) return result;
    const { hiddenTools, review } = this.target;
    const defs = items.map(definitionOf);
    const fresh = defs.filter((d): d is Definition => d !== undefined && !review.recorded(kind, d));
    if (fresh.length || !review.pinned(kind)) {
      const complete = firstPage && !(result as { nextCursor?: unknown }).nextCursor;
      this.record(
        this.target,
        kind,
        defs.filter((d): d is Definition => d !== undefined),
        complete,
      );
    }
    const kept = items.filter((_, i) => {
      const d = defs[i];
      if (kind === "tool" && d && hiddenTools.has(d.name)) return false;
      if (kind === "tool" && !d && hiddenTools.has(String((items[i] as { name?: unknown } | null)?.name))) return false;
      return review.exposes(kind, d);
    });
    return kept.length === items.length ? result : { ...(result as Record<string, unknown>), [LISTINGS[kind].field]: kept };
  }
}

/**
 * The owner can change which tools, prompts and resource templates a deployment exposes at any
 * time (hiding tools, approving changed definitions), and the gateway then tells its sessions the
 * lists changed: so a server with any of them is announced as one whose lists change.
 */
export function announcingToolChanges(result: unknown): unknown {
  const r = result as { capabilities?: Record<string, unknown> } | undefined;
  const caps = r?.capabilities;
  if (!caps || typeof caps !== "object") return result;
  const announced = { ...caps };
  for (const list of ["tools", "prompts", "resources"]) {
    const c = caps[list];
    if (c && typeof c === "object" && !Array.isArray(c)) announced[list] = { ...c, listChanged: true };
  }
  return { ...r, capabilities: announced };
}
