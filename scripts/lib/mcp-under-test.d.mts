export type McpUnderTest = {
  base: string;
  /** The Worker's own /api/mcp (send a credential). */
  mcpUrl: string;
  /** The loopback front that adds the API key (for anonymous clients). */
  frontUrl: string;
  token: string;
  apiKey: string;
  stop(): Promise<void>;
};

export function startMcpUnderTest(): Promise<McpUnderTest>;
export function accountWithKey(base: string): Promise<{ token: string; apiKey: string }>;
export function keyedFront(target: string, apiKey: string): Promise<{ url: string; close(): Promise<void> }>;
