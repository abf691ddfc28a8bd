// ITU-T Q.850 cause values the platform reports, with their standard texts.
const TEXTS: Record<number, string> = {
  1: "Unallocated (unassigned) number",
  3: "No route to destination",
  16: "Normal call clearing",
  17: "User busy",
  18: "No user responding",
  19: "No answer from user (user alerted)",
  21: "Call rejected",
  22: "Number changed",
  27: "Destination out of order",
  28: "Invalid number format",
  29: "Facility rejected",
  31: "Normal, unspecified",
  34: "No circuit/channel available",
  38: "Network out of order",
  41: "Temporary failure",
  42: "Switching equipment congestion",
  44: "Requested circuit/channel not available",
  47: "Resource unavailable, unspecified",
  50: "Requested facility not subscribed",
  55: "Incoming calls barred within CUG",
  57: "Bearer capability not authorized",
  58: "Bearer capability not presently available",
  65: "Bearer capability not implemented",
  79: "Service or option not implemented, unspecified",
  88: "Incompatible destination",
  102: "Recovery on timer expiry",
  111: "Protocol error, unspecified",
  127: "Interworking, unspecified",
};

export const q850Text = (cause: number | null | undefined): string | null =>
  cause == null ? null : (TEXTS[cause] ?? `Cause ${cause}`);
