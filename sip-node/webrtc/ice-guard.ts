// The ICE socket of a WebRTC leg hears only what it should. werift hands every datagram that is
// not STUN to DTLS and SRTP whatever its source, and takes a DTLS alert in plain text as the end
// of the session: one spoofed 15-byte packet from anyone to the port (the RTP range is known)
// closed the node's DTLS and cut the browser's audio. As MediaRelay latches RTP to its party,
// the guard lets through STUN from anyone (ICE checks, authenticated by their MESSAGE-INTEGRITY)
// and everything else only from an address that passed an ICE check of this call.
import type { RTCPeerConnection } from "werift";

type Address = readonly [string, number];
type Transport = { onData: (data: Buffer, addr: Address) => void };
/** werift's ICE connection, as far as the guard reads it (its protocols are not public). */
type GuardedConnection = {
  protocols: Array<{ transport?: Transport }>;
  checkList: Array<{ state: number; remoteAddr: Address }>;
};

/** werift's CandidatePairState.SUCCEEDED. */
const PAIR_SUCCEEDED = 3;
const STUN_MAGIC_COOKIE = 0x2112a442;

/** A STUN message (RFC 7983 §7: first byte 0-3, and RFC 5389's magic cookie). */
export function isStun(data: Buffer): boolean {
  return data.length >= 20 && data[0]! < 4 && data.readUInt32BE(4) === STUN_MAGIC_COOKIE;
}

/** Puts the guard on every ICE socket of `pc` (call once its candidates are gathered). */
export function guardIceSockets(pc: RTCPeerConnection): { dropped: () => number } {
  let dropped = 0;
  for (const ice of pc.iceTransports) {
    const connection = ice.connection as unknown as GuardedConnection;
    const verified = (addr: Address) =>
      connection.checkList.some(
        (pair) => pair.state === PAIR_SUCCEEDED && pair.remoteAddr[0] === addr[0] && pair.remoteAddr[1] === addr[1],
      );
    for (const protocol of connection.protocols) {
      const transport = protocol.transport;
      if (!transport) continue;
      const deliver = transport.onData;
      transport.onData = (data, addr) => {
        if (isStun(data) || verified(addr)) deliver(data, addr);
        else dropped++;
      };
    }
  }
  return { dropped: () => dropped };
}
