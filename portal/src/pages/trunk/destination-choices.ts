// The choices a destination's settings offer, in the words the form and the destination's card
// show them in.
import type { Destination } from "./shared.tsx";

export type Kind = Destination["kind"];
export type Transport = Destination["transport"];
export type Processing = Destination["processing"];
export type SampleMode = Destination["sample_mode"];
export type TransferMode = Destination["transfer_mode"];

export const PROCESSING: [Processing, string][] = [
  ["full", "Record and analyse"],
  ["record_only", "Record only"],
  ["relay_only", "Relay only (nothing recorded)"],
];
export const SAMPLE_MODES: [SampleMode, string][] = [
  ["analyse", "Analyse the sampled calls (the others are recorded as processing says)"],
  ["record", "Record only the sampled calls (the others are relayed)"],
];
export const TRANSFER_MODES: [TransferMode, string][] = [
  ["platform", "The platform bridges transfers"],
  ["refer", "Pass the SIP REFER on"],
];
export const TRANSPORTS: Transport[] = ["udp", "tcp", "tls"];
