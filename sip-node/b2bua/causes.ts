// SIP status codes as the platform reports them: reason phrases, and the Q.850 cause of a
// failed call (RFC 3398 §8.2.6.1 maps SIP responses to ISUP causes).

const REASONS: Record<number, string> = {
  100: "Trying",
  180: "Ringing",
  183: "Session Progress",
  200: "OK",
  400: "Bad Request",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  480: "Temporarily Unavailable",
  481: "Call/Transaction Does Not Exist",
  486: "Busy Here",
  487: "Request Terminated",
  488: "Not Acceptable Here",
  500: "Server Internal Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Server Time-out",
  513: "Message Too Large",
  600: "Busy Everywhere",
  603: "Decline",
};

export const reasonPhrase = (status: number): string => REASONS[status] ?? (status < 300 ? "OK" : "Error");

const Q850_OF_SIP: Record<number, number> = {
  400: 41, 401: 21, 402: 21, 403: 21, 404: 1, 405: 63, 406: 79, 407: 21, 408: 102, 410: 22, 413: 127, 414: 127,
  415: 79, 416: 127, 420: 127, 421: 127, 423: 127, 480: 18, 481: 41, 482: 25, 483: 25, 484: 28, 485: 1, 486: 17,
  487: 16, 488: 88, 500: 41, 501: 79, 502: 38, 503: 41, 504: 102, 505: 127, 513: 127, 600: 17, 603: 21, 604: 1, 606: 58,
};

/** Q.850 cause of a call's final status: 16 normal clearing for an answered call. */
export const q850Of = (status: number): number => (status < 300 ? 16 : (Q850_OF_SIP[status] ?? 31));
