// Log lines about one call, each naming the call: the SIP Call-ID until the Worker admits it,
// then the Worker's call id, so a line can be found from either side.

export type LogSink = (line: string) => void;

export type CallLog = {
  readonly callId: string;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
};

/** A logger for the call `callId`, writing through `sink` (the node's log; stderr by default). */
export function callLog(callId: string, sink: LogSink = console.error): CallLog {
  const line = (level: string, message: string) => sink(`${level} call ${callId}: ${message}`);
  return {
    callId,
    info: (message) => line("info", message),
    warn: (message) => line("warn", message),
    error: (message) => line("error", message),
  };
}
