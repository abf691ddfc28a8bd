// The names a B2BUA call and its parts share: its two legs and the states it goes through.

/** The caller's leg (A, where we are the UAS) and the destination's (B, the leg we dial). */
export type Leg = "a" | "b";

/** admitting: the Worker is asked; calling and early: the destination is dialled, then rings; confirmed: answered. */
export type CallState = "admitting" | "calling" | "early" | "confirmed" | "ended";
