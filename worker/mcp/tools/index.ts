// Every tool the MCP server offers, in the order tools/list answers them (onboarding first).
import type { Tool } from "../tool.ts";
import { getCallTool, getTranscriptTool, listCallsTool, reportLinksTool } from "./calls.ts";
import { addDestinationTool, checkDestinationTool, listDestinationsTool } from "./destinations.ts";
import { addAlertRuleTool, listChannelsTool, setWebhookTool, testWebhookTool } from "./events.ts";
import { cliCoverageTool, getCliCheckTool, hostNumberTool, listHostedNumbersTool, testHostedNumberTool, verifyCliTool } from "./cli.ts";
import { getStartedTool } from "./get-started.ts";
import { addRoutingRuleTool, whitelistIpTool } from "./network.ts";
import { getScreeningRulesTool, listDoNotOriginateTool } from "./screening.ts";
import { cancelTestCallTool, getTestCallTool, listVerifiedNumbersTool, placeTestCallTool } from "./test-calls.ts";

export const TOOLS: Tool[] = [
  getStartedTool,
  listDestinationsTool,
  addDestinationTool,
  checkDestinationTool,
  whitelistIpTool,
  addRoutingRuleTool,
  setWebhookTool,
  testWebhookTool,
  addAlertRuleTool,
  listChannelsTool,
  placeTestCallTool,
  getTestCallTool,
  cancelTestCallTool,
  listVerifiedNumbersTool,
  cliCoverageTool,
  verifyCliTool,
  getCliCheckTool,
  hostNumberTool,
  testHostedNumberTool,
  listHostedNumbersTool,
  getScreeningRulesTool,
  listDoNotOriginateTool,
  listCallsTool,
  getCallTool,
  getTranscriptTool,
  reportLinksTool,
];

export const toolNamed = (name: string): Tool | undefined => TOOLS.find((tool) => tool.name === name);
