// The one form of HTTP Range request media players send (RFC 9110 §14): a single byte range.
// Several ranges, another unit or a malformed header are ignored (the whole file is served,
// as the RFC allows); a well-formed range that starts past the end is unsatisfiable.

export type ByteRange = { offset: number; length: number };

/** The range to serve, "unsatisfiable", or null for the whole file. */
export function parseByteRange(header: string | null | undefined, size: number): ByteRange | "unsatisfiable" | null {
  if (!header) return null;
  const match = /^bytes=(\d*)-(\d*)$/i.exec(header.trim());
  if (!match) return null;
  const [, first, last] = match as unknown as [string, string, string];
  if (first === "" && last === "") return null;
  if (first === "") {
    // The last n bytes.
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    const length = Math.min(suffix, size);
    return { offset: size - length, length };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Number(last);
  if (last !== "" && end < start) return null;
  if (start >= size) return "unsatisfiable";
  return { offset: start, length: Math.min(end, size - 1) - start + 1 };
}
