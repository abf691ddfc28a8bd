export type DemoIotSummary = {
  devices: number;
  events: { sent: number; existing: number };
  iccid: string | null;
  charged: number;
};

export const DEMO_DEVICES: { device: string; label: string; events: { topic: string; payload: unknown }[] }[];

export function seedIotHistory(
  base: string,
  username: string,
  key: string,
  options?: { country?: string; fetch?: (input: string, init?: RequestInit) => Promise<Response> },
): Promise<DemoIotSummary>;
