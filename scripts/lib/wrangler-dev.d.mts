import type { ChildProcess } from "node:child_process";

export type WranglerDev = {
  child: ChildProcess;
  base: string;
  stop(): Promise<void>;
  ready: Promise<void>;
};

export function startWranglerDev(options: {
  port: number;
  host?: string;
  persistTo?: string;
  vars?: Record<string, string>;
  config?: string;
  stdio?: "inherit" | "ignore" | "pipe";
}): Promise<WranglerDev>;
