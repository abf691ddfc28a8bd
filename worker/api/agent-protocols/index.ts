// The MCP server and the OAuth 2.1 server in the API's document. Both have their own front
// doors (worker/mcp/, worker/oauth/: JSON-RPC and form-encoded OAuth, defined by the MCP
// specification and the RFCs, not by zod routes), so they are described here, not served.
export { documentAgentProtocols as register } from "./paths.ts";
