// The catalogue's texts: the directory, submitting, the admins' review, checks and My submissions
// (docs/product.md#catalogue), used verbatim by pages, the API and tests. Re-exported by catalog.ts.

export const CATALOG_TEXT = {
  notFound: "Server not found",
  badCursor: "This cursor is not one this listing gave: start again from the first page.",
  cursorExpired: "This cursor is more than an hour old: start again from the first page.",
  backToServers: "Back to Servers",
  loadFailed: "Failed to load server details. The server may not exist or you may not have permission to view it.",
  empty: "No servers match your search.",
  emptyHint: "Try fewer words, another category, or clear the filters.",
} as const;

export const SUBMIT_TEXT = {
  authRequired: "Authentication Required",
  authRequiredText: "You need to be logged in to add MCP servers to the directory.",
  mustLogin: "You must be logged in to add a server",
  requiredFields: "Please fill in all required fields",
  idFormat: "Server ID may contain only lowercase letters, numbers and hyphens",
  duplicate: "A server with this ID already exists. Please use a different ID.",
  success: "Server submitted successfully! It will be reviewed before being added to the directory.",
  unexpected: "An unexpected error occurred. Please try again later.",
  failed: (message: string) => `Failed to add the server: ${message}`,
  submit: "Submit Server",
  submitting: "Submitting...",
  backToDirectory: "Back to Directory",
  urlInvalid: (field: string) => `${field} must be a valid http(s) URL`,
} as const;

export const ADMIN_TEXT = {
  title: "MCP Servers Administration",
  pendingTab: (n: number) => `Pending Submissions (${n})`,
  approvedTab: (n: number) => `Approved Servers (${n})`,
  pendingBadge: "Pending Approval",
  approvedBadge: "Approved",
  whatRuns: "What will run",
  noKeys: "none",
  noPending: "No pending submissions.",
  noApproved: "No approved servers yet.",
  processing: "Processing...",
  loadPendingFailed: "Failed to load pending submissions",
  loadApprovedFailed: "Failed to load approved servers",
  approveFailed: "Failed to approve server. Please try again later.",
  rejectFailed: "Failed to reject server. Please try again later.",
  unapproveFailed: "Failed to unapprove server. Please try again later.",
  unknown: "Unknown",
  toolsChanged: "Tools changed since approval",
  toolsChangedSummary: (n: number) =>
    `${n} approved ${n === 1 ? "server's" : "servers'"} listed tools changed since approval: see Approved Servers.`,
  toolsAdded: "Added",
  toolsChangedList: "Changed",
  toolsRemoved: "Removed",
  acceptTools: "Accept tools",
  acceptToolsFailed: "Failed to accept the tools. Please try again later.",
  reject: "Reject",
  rejectTitle: (name: string) => `Reject "${name}"?`,
  rejectText:
    "It is deleted and will not be listed. Its submitter is told by e-mail and on My submissions, with your reason if you give one; they may submit it again.",
  rejectImportedText:
    "It came from a registry import: it is withdrawn for good and never listed again, even when its registry lists it anew.",
  reasonLabel: "Reason (optional)",
  reasonHint: (max: number) => `Sent to the submitter as written, up to ${max} characters.`,
  cancel: "Cancel",
} as const;

/** The e-mail a submitter gets when an admin rejects their submission (features/mail/templates.ts). */
export const REJECTION_MAIL_TEXT = {
  subject: (site: string, name: string) => `Your ${site} submission "${name}" was not listed`,
  heading: "Your submission was not listed",
  body: (site: string, name: string, id: string) => `An administrator of ${site} reviewed "${name}" (${id}) and did not list it.`,
  reason: (reason: string) => `Their reason: ${reason}`,
  noReason: "They gave no reason.",
  again: "You may submit it again with more detail.",
  action: "Open My submissions",
  footer: "You get this because you submitted this server to the catalogue.",
} as const;

export const WORKS_TEXT = {
  filter: "Works here",
  badge: "Works here",
  title: "Checked here",
  works: (n: number) => `Works here: it started in Switchboard's sandbox and listed ${n} ${n === 1 ? "tool" : "tools"}.`,
  worksRemote: (n: number) => `Works: its endpoint answered through Switchboard and listed ${n} ${n === 1 ? "tool" : "tools"}.`,
  needsKeys: "Needs real keys: it did not start with placeholder values for its required keys.",
  needsSignIn: "Needs real credentials: its endpoint refused a call without them.",
  fails: (why: string) => `Does not work here: ${why}`,
  cannotRun: (why: string) => `Cannot run here: ${why}`,
  checkedOn: (date: string) => `Checked ${date}`,
  toolsPending: "Its tools are shown once an administrator has reviewed them.",
  /** a demo entry of the platform's own seed, not checked yet: the platform checks it by itself (deployments/checks/seed-checks.ts) */
  seedPending: "Switchboard is checking this server by itself: its tools are listed here once it has run here, in a few minutes.",
  /** any other entry without a public listing */
  toolsUnchecked: "Its tools are listed here once an administrator has checked them.",
} as const;

/** 'Check now' on the admin page: the platform lists a catalogue entry's tools itself (docs/product.md#trusted-listings). */
export const CHECK_TEXT = {
  checkNow: "Check now",
  checking: "Checking…",
  started: "Check started: the listing appears here when the server has started.",
  already: "A check of this server is already running.",
  failed: "The check could not start the server.",
  checkFailed: (detail: string) => `Last check failed: ${detail}`,
  timedOut: "The check did not finish in time.",
  cannotRun: (why: string) => `This server cannot be checked here: ${why}`,
  remote: "it is hosted by its publisher.",
  noSource: "it has no npx or uvx command or repository.",
  firstListing: "Listing from a check, not public yet",
  checkFailedAction: "Failed to start the check. Please try again later.",
} as const;

export const MY_SUBMISSIONS_TEXT = {
  title: "My submissions",
  intro: "The servers you submitted to the catalogue, and where each one stands.",
  empty: "You have not submitted a server yet.",
  submit: "Submit a server",
  status: { pending: "Pending review", approved: "Approved", rejected: "Rejected" },
  rejectedHint: "An administrator did not list it. You may submit it again with more detail.",
  reason: "Reason:",
} as const;
