// What the recorder and the capture writers share to write their spool files cheaply.
import type { WriteStream } from "node:fs";

/**
 * Buffers a file stream has finished writing, kept for the next write: a busy node fills
 * hundreds a second, and allocating each afresh (off the V8 heap) kept the garbage collector
 * marking the whole heap several times a second. Requests above `size` get a buffer of their own.
 */
export class BufferPool {
  private readonly spare: ArrayBuffer[] = [];
  readonly size: number;
  private readonly max: number;

  constructor(size: number, max = 64) {
    this.size = size;
    this.max = max;
  }

  take(bytes: number): ArrayBuffer {
    return (bytes <= this.size && this.spare.pop()) || new ArrayBuffer(Math.max(this.size, bytes));
  }

  give(buffer: ArrayBuffer): void {
    if (buffer.byteLength === this.size && this.spare.length < this.max) this.spare.push(buffer);
  }
}

/** Ends a write stream and waits until its file is closed. */
export function endStream(stream: WriteStream, errorSoFar: () => Error | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = errorSoFar();
    if (failed) return reject(failed);
    stream.once("close", () => {
      const error = errorSoFar();
      if (error) reject(error);
      else resolve();
    });
    stream.end();
  });
}
