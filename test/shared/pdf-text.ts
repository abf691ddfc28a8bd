// What a PDF's pages say, for tests in workerd and in Node alike: pdf-lib parses the file; each
// page's content streams are inflated and the strings of its text operators (pdf-lib writes
// `<hex> Tj`, WinAnsi) are read back.
import { decodePDFRawStream, PDFArray, PDFDocument, PDFRawStream, type PDFObject } from "pdf-lib";

export async function pdfText(bytes: Uint8Array): Promise<{ pages: number; lines: string[] }> {
  const doc = await PDFDocument.load(bytes);
  const lines: string[] = [];
  for (const page of doc.getPages()) {
    const contents = page.node.Contents();
    const streams: (PDFObject | undefined)[] =
      contents instanceof PDFArray ? contents.asArray().map((ref) => doc.context.lookup(ref)) : [contents];
    for (const stream of streams) {
      if (!(stream instanceof PDFRawStream)) continue;
      const ops = new TextDecoder("latin1").decode(decodePDFRawStream(stream).decode());
      for (const [, hex] of ops.matchAll(/<([0-9A-Fa-f]*)>\s*Tj/g)) {
        lines.push(String.fromCharCode(...(hex!.match(/../g) ?? []).map((h) => parseInt(h, 16))));
      }
    }
  }
  return { pages: doc.getPageCount(), lines };
}
