// The AI agents a person authorised through OAuth (MCP clients): list them, revoke one.
export { registerAgents as register } from "./routes.ts";
