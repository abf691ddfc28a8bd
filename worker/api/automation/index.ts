// Automation rules and controlled numbers.
export { registerAutomation as register } from "./routes.ts";
