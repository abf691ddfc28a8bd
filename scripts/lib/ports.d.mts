export function freeTcpPort(): Promise<number>;
export function freeUdpPort(): Promise<number>;
