// What the authorization server says to people (consent page errors, Connected apps answers).
export const OAUTH_SERVER_TEXT = {
  unknownClient: "This application is not registered. Start the connection again from the application.",
  badRedirect: "This application asked to send the answer to an address it did not register.",
  needsOneDeployment: "The application must ask for exactly one deployment (its URL ending in /mcp).",
  unknownDeployment: "There is no deployment at the address this application asked for.",
  notOwner: "Only the owner of this deployment can give an application access to it.",
  appNotFound: "Connected app not found",
  onlyHttps: "Applications may receive the answer only at an https address, or on this computer (loopback) for desktop applications.",
} as const;
