import { audioSource, boundedJson, clipText, imageSource, label, LIMITS, safeHref, type Clipped, type Media } from "./limits";
import { PLAYGROUND_TEXT as T } from "./text";

// What a tool result, a prompt or a resource read shows, as plain data: every server string is
// clipped here and rendered as text later; media become data: URLs only when limits.ts allows.

export type Block =
  | { kind: "text"; text: Clipped }
  | { kind: "image"; mimeType: string; media: Media }
  | { kind: "audio"; mimeType: string; media: Media }
  | { kind: "resource"; uri: string; mimeType: string; text?: Clipped; blobBytes?: number; image?: Media }
  | { kind: "link"; name: string; uri: string; href: string | null; description: string; mimeType: string }
  | { kind: "json"; title: string; json: Clipped };

export interface Blocks {
  blocks: Block[];
  /** items past LIMITS.items, not rendered */
  hidden: number;
}

export interface ToolView extends Blocks {
  isError: boolean;
  structured?: Clipped;
}

export interface PromptView {
  description: string;
  messages: { role: string; blocks: Block[] }[];
  hidden: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** One content item (tool results and prompt messages share these) or one resource content. */
export function contentBlock(c: unknown): Block {
  if (!isObj(c)) return { kind: "json", title: T.unknownContent, json: boundedJson(c) };
  const mimeType = label(c.mimeType, 200);
  switch (c.type) {
    case "text":
      return { kind: "text", text: clipText(str(c.text)) };
    case "image":
      return { kind: "image", mimeType, media: imageSource(c.mimeType, c.data) };
    case "audio":
      return { kind: "audio", mimeType, media: audioSource(c.mimeType, c.data) };
    case "resource":
      return resourceBlock(c.resource);
    case "resource_link":
      return {
        kind: "link",
        name: label(c.title) || label(c.name),
        uri: label(c.uri, 4096),
        href: safeHref(c.uri),
        description: label(c.description),
        mimeType,
      };
    default:
      return { kind: "json", title: T.contentOfType(label(c.type, 80)), json: boundedJson(c) };
  }
}

/** An embedded or read resource: text shown as text, a blob as its size and type (a raster image as the image). */
export function resourceBlock(r: unknown): Block {
  if (!isObj(r)) return { kind: "json", title: T.resource, json: boundedJson(r) };
  const base = { kind: "resource" as const, uri: label(r.uri, 4096), mimeType: label(r.mimeType, 200) };
  if (typeof r.text === "string") return { ...base, text: clipText(r.text) };
  const blob = str(r.blob);
  const image = imageSource(r.mimeType, blob);
  return { ...base, blobBytes: image.bytes, image: image.ok ? image : undefined };
}

function blocksOf(items: unknown, toBlock: (c: unknown) => Block): Blocks {
  const list = Array.isArray(items) ? items : [];
  return { blocks: list.slice(0, LIMITS.items).map(toBlock), hidden: Math.max(0, list.length - LIMITS.items) };
}

export function toolView(result: unknown): ToolView {
  const r = isObj(result) ? result : {};
  const view: ToolView = { ...blocksOf(r.content, contentBlock), isError: r.isError === true };
  if (r.structuredContent !== undefined) view.structured = boundedJson(r.structuredContent);
  // An old-style result ({ toolResult }) or anything else: show it as it came.
  if (!Array.isArray(r.content) && r.structuredContent === undefined)
    view.blocks.push({ kind: "json", title: T.result, json: boundedJson(result) });
  return view;
}

export function promptView(result: unknown): PromptView {
  const r = isObj(result) ? result : {};
  const list = Array.isArray(r.messages) ? r.messages : [];
  return {
    description: label(r.description),
    messages: list
      .slice(0, LIMITS.items)
      .map((m) => ({ role: label(isObj(m) ? m.role : "", 40) || T.unknownRole, blocks: [contentBlock(isObj(m) ? m.content : m)] })),
    hidden: Math.max(0, list.length - LIMITS.items),
  };
}

export function resourceView(result: unknown): Blocks {
  return blocksOf(isObj(result) ? result.contents : undefined, resourceBlock);
}

/** The words for a failed request: a JSON-RPC error's code and message, or the error's message. */
export function errorText(e: unknown): { code?: number; message: string } {
  const err = e as { code?: unknown; message?: unknown };
  const message = label(typeof err?.message === "string" ? err.message : String(e), 4000);
  return typeof err?.code === "number" ? { code: err.code, message } : { message };
}

/** The JSON-RPC code the gateway gives a session it does not know. */
const SESSION_NOT_FOUND = -32001;

/**
 * Whether a failed request means the gateway no longer knows the session: it expired after a
 * while without use, or the platform restarted. The gateway then answers HTTP 404 (the SDK's
 * StreamableHTTPError, whose code is the status), or -32001 for a call the ending session cut.
 * The SDK's own time-outs share -32001 but carry their limit in `data`.
 */
export function sessionGone(e: unknown): boolean {
  if (typeof e !== "object" || e === null) return false;
  const { code, message, data } = e as { code?: unknown; message?: unknown; data?: unknown };
  if (code === 404) return typeof message === "string" && message.startsWith("Streamable HTTP error");
  if (code !== SESSION_NOT_FOUND) return false;
  return !(isObj(data) && (Object.hasOwn(data, "timeout") || Object.hasOwn(data, "maxTotalTimeout")));
}
