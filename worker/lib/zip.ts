// A zip archive streamed as it is read, entry after entry, with fflate: nothing is held in
// memory beyond the chunk in flight, so captures of hundreds of megabytes fit a Worker.
// Entries are stored, not deflated: RTP payloads are already coded audio and deflating
// hundreds of megabytes would spend the request's CPU for little gain.
import { Zip, ZipPassThrough } from "fflate";

export type ZipEntry = {
  name: string;
  /** Opened when the entry's turn comes, so only one source stream is open at a time. */
  open: () => Promise<ReadableStream<Uint8Array>>;
};

export function zipStream(entries: ZipEntry[]): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const ignore = () => {};
  const zip = new Zip((err, chunk, final) => {
    if (err) {
      writer.abort(err).catch(ignore);
      return;
    }
    writer.write(chunk).catch(ignore);
    if (final) writer.close().catch(ignore);
  });

  const pump = async () => {
    for (const entry of entries) {
      const file = new ZipPassThrough(entry.name);
      zip.add(file);
      const reader = (await entry.open()).getReader();
      try {
        for (;;) {
          // Backpressure: read the next chunk only when the client has taken the last one.
          await writer.ready;
          const { done, value } = await reader.read();
          if (done) break;
          file.push(value as Uint8Array<ArrayBuffer>);
        }
      } catch (err) {
        await reader.cancel(err).catch(ignore);
        throw err;
      }
      file.push(new Uint8Array(0), true);
    }
    zip.end();
  };
  pump().catch((err: unknown) => {
    zip.terminate();
    writer.abort(err).catch(ignore);
  });
  return readable;
}
