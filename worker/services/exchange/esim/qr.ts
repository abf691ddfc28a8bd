// The QR code of an LPA string as a PNG, base64. lean-qr encodes (pure JS, no canvas or DOM);
// its PNG writer uses node:zlib's deflateSync and Buffer, available under nodejs_compat.
// A code costs about a millisecond of CPU; inventory pages show up to 100, so each isolate keeps
// the most recent ones (an LPA string never changes).
import { correction, generate } from "lean-qr";
import { toPngBuffer } from "lean-qr/extras/node_export";

const BLACK = [0, 0, 0, 255] as const;
const WHITE = [255, 255, 255, 255] as const;
const CACHE_SIZE = 2_000;
const cache = new Map<string, string>();

/** A 1-bit PNG, error correction M or better, 6 pixels a module and the standard 4-module quiet zone. */
export function qrPngBase64(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) {
    cache.delete(text);
    cache.set(text, hit);
    return hit;
  }
  const code = generate(text, { minCorrectionLevel: correction.M });
  const png = base64(toPngBuffer(code, { on: BLACK, off: WHITE, pad: 4, scale: 6 }));
  cache.set(text, png);
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return png;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}
