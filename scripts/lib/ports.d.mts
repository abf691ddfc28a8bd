export function freeTcpPort(): Promise<number>;
export function freeUdpPort(): Promise<number>;
export function freeSipPort(): Promise<number>;
