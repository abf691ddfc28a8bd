// Where a call's media lives in the MEDIA bucket: the node API's uploads write there and the
// services read there, so both take the key from here and can never disagree.
import type { MediaName } from "../../schema/node-api.ts";

export const mediaKey = (customerId: string, callId: string, name: MediaName) => `calls/${customerId}/${callId}/${name}`;
