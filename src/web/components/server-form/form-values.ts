import { DEFAULT_VERSION, type OwnedServerView } from "~/shared/publishers";

// The register/edit server form's fields as typed, and what they start with (blank, or the server being edited).

/** The form's fields as typed (Conform's view of them). */
export type ServerFormInput = {
  qualifiedName: string;
  displayName: string;
  description: string;
  version: string;
  homepage: string;
  repositoryUrl: string;
  keywords: string;
  documentation: string;
  connections: { type: string; url: string; configSchema: string }[];
};

export function initialValues(server: OwnedServerView | null, username: string): ServerFormInput {
  if (!server)
    return {
      qualifiedName: `${username}/`,
      displayName: "",
      description: "",
      version: DEFAULT_VERSION,
      homepage: "",
      repositoryUrl: "",
      keywords: "",
      documentation: "",
      connections: [{ type: "ws", url: "", configSchema: "" }],
    };
  return {
    qualifiedName: server.qualifiedName,
    displayName: server.displayName,
    description: server.description,
    version: server.version,
    homepage: server.homepage ?? "",
    repositoryUrl: server.repositoryUrl ?? "",
    keywords: server.keywords.join(", "),
    documentation: server.documentation ?? "",
    connections: server.connections.map((c) => ({
      type: c.type,
      url: c.url,
      configSchema: Object.keys(c.configSchema).length ? JSON.stringify(c.configSchema, null, 2) : "",
    })),
  };
}
