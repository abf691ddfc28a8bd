export function spokenCode(audio: Uint8Array, intro?: Uint8Array, digits?: Uint8Array[]): string | null;
export function startLocalPhone(options?: {
  port?: number;
  log?: (line: string) => void;
  onInvite?: (message: string) => void;
}): Promise<{ port: number; stop(): Promise<void> }>;
