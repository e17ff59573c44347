import { formatBytes, formatCount } from "~/shared/format";

// Every word the playground shows (house rule: one place per feature). Server strings are not
// here: they are shown as sent, bounded by limits.ts.

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

export const PLAYGROUND_TEXT = {
  title: "Playground",
  intro: "Try this deployment's tools, prompts and resources. Calls go through its URL as your own, like any client's.",
  connecting: "Connecting…",
  waking: "Waking the server (it was asleep)…",
  connectedTo: "Connected to",
  theServer: "the server",
  connectFailed: "Could not connect to the deployment.",
  sessionEnded: "The session ended.",
  deploymentStopping: "The deployment is stopping.",
  sessionLost:
    "This session is no longer known: it expired after a while without use, or the platform restarted. Retry to start a new one; nothing is run again on its own.",
  retry: "Retry",
  tabs: { tools: "Tools", prompts: "Prompts", resources: "Resources" },

  // Lists and buttons every tab shares
  filter: (what: string) => `Filter ${what}`,
  filterPlaceholder: (what: string) => `Filter ${what}…`,
  noMatch: (what: string) => `No ${what} match.`,
  cancel: "Cancel",
  shortcut: ["Ctrl", "Enter"] as const,
  arguments: "Arguments",

  // Tools
  noTools: "This server offers no tools.",
  run: "Run",
  readOnly: "read-only",
  destructive: "destructive",
  form: "Form",
  rawJson: "Raw JSON",
  rawJsonOnly: (why: string) => `Raw JSON only: ${why.replace(/\.$/, "")}.`,
  rawLabel: "Arguments as JSON",
  fieldsNeedAttention: (n: number) => (n === 1 ? "One field needs attention." : `${formatCount(n)} fields need attention.`),
  cancelledByUser: "Cancelled by the user",

  // Prompts
  noPrompts: "This server offers no prompts.",
  getPrompt: "Get prompt",
  fillRequired: "Fill in the required arguments.",

  // Resources
  noResources: "This server offers no resources.",
  read: "Read",
  template: (name: string) => `${name} (template)`,
  fillVariables: "Fill in every variable.",

  // A call's life
  progress: "Progress",
  progressOf: (done: number, total: number) => `${formatCount(done)} of ${formatCount(total)}`,
  progressDone: (done: number) => `${formatCount(done)} done`,
  waiting: "Waiting for the server…",
  serverLog: "Server log",
  running: "Running…",
  result: "Result",
  error: "Error",
  cancelled: "Cancelled",
  cancelledNote: "Cancelled. The server was told to stop.",
  rpcError: (code: number) => `JSON-RPC error ${code}`,

  // The form
  required: "Required",
  requiredSr: " (required)",
  json: "JSON",
  jsonHelp: (why: string) => `Enter JSON: the form cannot show a field that ${why}.`,
  listOf: (kind: string) => `list of ${kind}`,
  removeItem: (i: number, of: string) => `Remove item ${i} of ${of}`,
  addItem: "Add item",
  item: "Item",
  choose: "Choose…",
  none: "(none)",
  wholeNumber: "whole number",
  number: "number",
  noArguments: "No arguments.",
  enterNumber: "Enter a number",
  enterWholeNumber: "Enter a whole number",
  atLeast: (n: number) => `At least ${n}`,
  atMost: (n: number) => `At most ${n}`,
  atLeastItems: (n: number) => `At least ${n} ${plural(n, "item", "items")}`,
  atMostItems: (n: number) => `At most ${n} items`,
  notJson: (why: string) => `Not valid JSON: ${why}`,
  notAnObject: "The arguments must be a JSON object.",
  placeholders: {
    "date-time": "e.g. 2025-01-31T12:00:00Z",
    time: "e.g. 12:00:00",
    uuid: "e.g. 123e4567-e89b-12d3-a456-426614174000",
  } as Record<string, string>,
  // Why the form cannot show something (completes "the form cannot show a field that …")
  why: {
    noSchema: "The tool gives no input schema.",
    tooManyFields: (max: number) => `The input has more than ${max} fields.`,
    notObject: "The input is not an object.",
    uses: (keyword: string) => `uses ${keyword}`,
    tooManyChoices: "has too many choices",
    tooDeep: "is nested too deeply",
    anyItems: "has items of any kind",
    anyKeys: "takes any keys",
    fieldNoSchema: "has no schema",
    anyValue: "takes any value",
    type: (t: string) => `has type ${t}`,
  },

  // Results
  showingFirst: (shown: number, total: number, what: string) => `Showing the first ${formatCount(shown)} of ${formatCount(total)} ${what}.`,
  characters: "characters",
  shortenedText: "Shortened: parts nested too deeply or too long are shown as …",
  shortenedJson: "Shortened: deep or large parts are shown as …",
  moreItems: (shown: number, more: number) => `Showing the first ${formatCount(shown)} items; ${formatCount(more)} more not shown.`,
  imageAlt: (mime: string) => `Image from the server (${mime})`,
  imageResourceAlt: (uri: string) => `Image resource ${uri}`,
  binary: (bytes: number) => `Binary content: ${formatBytes(bytes)}`,
  resourceLink: "Resource link",
  noContent: "No content.",
  noMessages: "No messages.",
  toolError: "The tool reported an error",
  structuredContent: "Structured content",
  unknownContent: "Unknown content",
  contentOfType: (type: string) => `Content of type ${type || "unknown"}`,
  resource: "Resource",
  unknownRole: "unknown",
  mediaType: (kind: string, mime: string) => `This ${kind} type (${mime || "none given"}) is not shown.`,
  mediaTooLarge: (kind: string, bytes: number) => `This ${kind} is too large to show (${formatBytes(bytes)}).`,
  mediaNotBase64: (kind: string) => `This ${kind}'s data is not valid base64.`,
} as const;
