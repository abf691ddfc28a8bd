// The layout of a call's PDF report (pdf-lib, its standard fonts): verdict and red flags first, as
// an analyst reads them, then the call's facts and timing, its quality, a transcript excerpt with
// times and speakers, and the SHA-256 of the recording and captures (the export's manifest lists
// the same). Text is wrapped to the page and pages are added as needed; each carries a footer.
// Standard fonts encode WinAnsi (Latin-1 and a few more) only: other characters print as "?"; the
// export's transcript.json and analysis.json keep the exact text.
import { PDFDocument, rgb, StandardFonts, type PDFFont, type PDFPage, type RGB } from "pdf-lib";
import type { Analysis, CallDetail, Transcript } from "../../resources/calls.ts";

/** One file of the evidence, as the export's manifest and the report list it. */
export type EvidenceFile = { name: string; size: number; sha256: string; content_type: string };

/** What the report is drawn from: the call, its verdict and transcript as the API answers them. */
export type ReportInput = {
  call: CallDetail;
  analysis: Analysis | null;
  transcript: Transcript | null;
  evidence: EvidenceFile[];
  /** The account's company name, when it has one. */
  account: string | null;
  generatedAt: string;
};

/** At most this much of the transcript is printed; the export carries all of it. */
const EXCERPT_SEGMENTS = 40;
const EXCERPT_CHARS = 4_000;

const A4: [number, number] = [595.28, 841.89];
const MARGIN = 50;
const LABEL_WIDTH = 130;
const INK = rgb(0.1, 0.1, 0.12);
const MUTED = rgb(0.42, 0.42, 0.46);
const RULE = rgb(0.8, 0.8, 0.83);
const VERDICT_COLOURS: Record<string, RGB> = { block: rgb(0.72, 0.11, 0.11), review: rgb(0.72, 0.45, 0.02), allow: rgb(0.1, 0.5, 0.2) };

type Fonts = { regular: PDFFont; bold: PDFFont; mono: PDFFont };
type TextStyle = { font?: keyof Fonts; size?: number; color?: RGB; indent?: number };

/** Keeps what the font can encode; anything else becomes "?" (and control characters a space). */
function encodable(font: PDFFont): (text: string) => string {
  const known = new Set(font.getCharacterSet());
  const keep = (ch: string) => {
    const code = ch.codePointAt(0)!;
    if (code < 0x20 || code === 0xa0) return " ";
    return known.has(code) ? ch : "?";
  };
  return (text) => Array.from(text, keep).join("");
}

/** Breaks text into lines no wider than `width`, at spaces, and inside a word only when it alone is too wide. */
function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const fits = (s: string) => font.widthOfTextAtSize(s, size) <= width;
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (let word of paragraph.split(" ").filter(Boolean)) {
      while (!fits(word)) {
        let cut = word.length - 1;
        while (cut > 1 && !fits(word.slice(0, cut))) cut--;
        if (line) lines.push(line);
        lines.push(word.slice(0, cut));
        line = "";
        word = word.slice(cut);
      }
      const candidate = line ? `${line} ${word}` : word;
      if (fits(candidate)) line = candidate;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
  }
  return lines;
}

/** A cursor down the pages: each write moves it, and a new page starts when the next block does not fit. */
class Layout {
  readonly pages: PDFPage[] = [];
  private page!: PDFPage;
  private y = 0;
  private readonly clean: Record<keyof Fonts, (text: string) => string>;
  readonly width = A4[0] - 2 * MARGIN;

  private readonly doc: PDFDocument;
  readonly fonts: Fonts;

  constructor(doc: PDFDocument, fonts: Fonts) {
    this.doc = doc;
    this.fonts = fonts;
    this.clean = { regular: encodable(fonts.regular), bold: encodable(fonts.bold), mono: encodable(fonts.mono) };
    this.newPage();
  }

  private newPage() {
    this.page = this.doc.addPage(A4);
    this.pages.push(this.page);
    this.y = A4[1] - MARGIN;
  }

  /** Starts a new page unless `height` more points fit above the footer. */
  ensure(height: number) {
    if (this.y - height < MARGIN + 20) this.newPage();
  }

  gap(points: number) {
    this.y -= points;
  }

  /** Wrapped text at `indent` from the margin, one line after another. */
  text(text: string, { font = "regular", size = 10, color = INK, indent = 0 }: TextStyle = {}, width = this.width - indent) {
    const face = this.fonts[font];
    const leading = size * 1.35;
    for (const line of wrap(this.clean[font](text), face, size, width)) {
      this.ensure(leading);
      this.y -= leading;
      this.page.drawText(line, { x: MARGIN + indent, y: this.y + (leading - size) / 2, size, font: face, color });
    }
  }

  heading(title: string) {
    this.ensure(48);
    this.gap(12);
    this.text(title, { font: "bold", size: 13 });
    this.page.drawLine({
      start: { x: MARGIN, y: this.y - 3 },
      end: { x: MARGIN + this.width, y: this.y - 3 },
      thickness: 0.7,
      color: RULE,
    });
    this.gap(8);
  }

  /** A label and its value side by side; the value wraps in its own column. */
  field(label: string, value: string, font: keyof Fonts = "regular") {
    // Courier is wide: a SHA-256 (64 characters) fits the value column at 8.5 points.
    const size = font === "mono" ? 8.5 : 9.5;
    const labelLines = wrap(this.clean.bold(label), this.fonts.bold, size, LABEL_WIDTH - 8);
    this.ensure(labelLines.length * size * 1.35);
    const [page, top] = [this.page, this.y];
    this.text(label, { font: "bold", size, color: MUTED }, LABEL_WIDTH - 8);
    const below = this.y;
    this.y = top;
    this.text(value, { font, size, indent: LABEL_WIDTH });
    // A value that ran onto a new page has left the label behind it.
    if (this.page === page) this.y = Math.min(this.y, below);
  }

  bullet(text: string) {
    this.text(`\u2022  ${text}`, { indent: 8 });
  }

  /** Writes "page n of N" and the call at the foot of every page. */
  footers(callId: string) {
    const { regular } = this.fonts;
    this.pages.forEach((page, i) => {
      page.drawText(`Call ${callId}  \u00b7  page ${i + 1} of ${this.pages.length}`, {
        x: MARGIN,
        y: MARGIN - 22,
        size: 8,
        font: regular,
        color: MUTED,
      });
    });
  }
}

const NONE = "\u2014";
const show = (value: unknown, unit = "") => (value === null || value === undefined || value === "" ? NONE : `${String(value)}${unit}`);
const when = (iso: string | null | undefined) => (iso ? `${iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "")} UTC` : NONE);
const clock = (sec: number) => `${Math.floor(sec / 60)}:${String(Math.floor(sec % 60)).padStart(2, "0")}`;
const seconds = (sec: number | null | undefined) => (sec === null || sec === undefined ? NONE : `${sec} s (${clock(sec)})`);
const fixed = (n: number | null | undefined, digits: number, unit = "") =>
  n === null || n === undefined ? NONE : `${n.toFixed(digits)}${unit}`;
const bytes = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

function verdictSection(l: Layout, { analysis, call }: ReportInput) {
  l.heading("Verdict");
  if (!analysis) {
    l.text(`No verdict: the call has not been analysed (analysis status: ${call.analysis_status}).`, { color: MUTED });
    return;
  }
  const colour = VERDICT_COLOURS[analysis.recommendation] ?? INK;
  l.text(`${analysis.recommendation.toUpperCase()}  \u2014  fraud probability ${analysis.probability}%`, {
    font: "bold",
    size: 15,
    color: colour,
  });
  if (analysis.title) l.text(analysis.title, { font: "bold", size: 11 });
  l.gap(4);
  l.field("Recommendation", analysis.recommendation);
  l.field("Probability", `${analysis.probability}%`);
  l.field("Category", analysis.category);
  l.field("Entity", show(analysis.entity));
  l.field("Caller identity", show(analysis.caller_identity));
  l.field("Language", show(analysis.language));
  l.field("Analysed at", when(analysis.created_at));
  if (analysis.summary) l.field("Summary", analysis.summary);
  if (analysis.tcpa_comment) l.field("TCPA", analysis.tcpa_comment);
  if (analysis.keywords?.length) l.field("Keywords", analysis.keywords.join(", "));

  l.heading("Red flags");
  if (analysis.red_flags?.length) analysis.red_flags.forEach((flag) => l.bullet(flag));
  else l.text("None listed.", { color: MUTED });
}

function callSection(l: Layout, { call }: ReportInput) {
  l.heading("Call");
  l.field("Caller (ANI)", show(call.ani));
  l.field("Dialed", show(call.dialed));
  l.field("Destination country", show(call.dest_country));
  l.field("Source address", call.src_ip);
  const destination = call.dest_host ? `${call.dest_host}:${call.dest_port} (${call.dest_transport})` : NONE;
  l.field("Routed to", call.routed_destination_label ? `${call.routed_destination_label}, ${destination}` : destination);
  l.field("Direction / origin", `${call.direction} / ${call.origin}`);
  l.field("SIP Call-ID", call.sip_call_id);
  if (call.external_id) l.field("External id", call.external_id);

  l.heading("Timing and outcome");
  l.field("Started", when(call.started_at));
  l.field("Answered", when(call.answered_at));
  l.field("Ended", when(call.ended_at));
  l.field("Duration", seconds(call.duration_sec));
  l.field("Billed", seconds(call.billsec));
  l.field("Post-dial delay", show(call.pdd_ms, " ms"));
  l.field("Answer delay", show(call.answer_delay_ms, " ms"));
  l.field("Status", call.status);
  l.field("SIP code", show(call.sip_code));
  l.field("End reason", show(call.end_reason));
  l.field("Hung up by", show(call.hangup_by));
  if (call.q850_cause !== null && call.q850_cause !== undefined)
    l.field("Q.850 cause", `${call.q850_cause} ${call.q850_text ?? ""}`.trim());
  if (call.dtmf?.length) l.field("DTMF", call.dtmf.map((d) => `${d.digit} at ${d.t.toFixed(1)} s (${d.channel})`).join(", "));

  l.heading("Quality");
  l.field("MOS", fixed(call.mos, 2));
  l.field("Jitter", fixed(call.jitter_ms, 1, " ms"));
  l.field("Packet loss", fixed(call.packet_loss_pct, 2, " %"));
  l.field("Codec", show(call.codec));
}

type Line = { at: number | null; speaker: string | null; text: string };

/** The transcript's segments as lines (time from the answer, speaker, words), or its text when it has none. */
function transcriptLines(transcript: Transcript): Line[] {
  const segments = (transcript.segments ?? []).map((s) => ({
    at: typeof s.start === "number" ? s.start : null,
    speaker: typeof s.speaker === "string" ? s.speaker : null,
    text: typeof s.text === "string" ? s.text.trim() : "",
  }));
  const spoken = segments.filter((s) => s.text);
  return spoken.length > 0 ? spoken : [{ at: null, speaker: null, text: transcript.text }];
}

function transcriptSection(l: Layout, { transcript, call }: ReportInput) {
  l.heading("Transcript excerpt");
  if (!transcript || !transcript.text.trim()) {
    l.text(`No transcript (transcript status: ${call.transcript_status}).`, { color: MUTED });
    return;
  }
  const lines = transcriptLines(transcript);
  let budget = EXCERPT_CHARS;
  let shown = 0;
  for (const line of lines.slice(0, EXCERPT_SEGMENTS)) {
    if (budget <= 0) break;
    const words = line.text.length > budget ? `${line.text.slice(0, budget)}\u2026` : line.text;
    budget -= words.length;
    shown++;
    const who = line.speaker ? `${line.speaker[0]!.toUpperCase()}${line.speaker.slice(1)}` : "";
    const tenths = line.at === null ? null : Math.round(line.at * 10);
    const stamp = tenths === null ? "" : `[${clock(Math.floor(tenths / 10))}.${tenths % 10}]`;
    const label = [stamp, who].filter(Boolean).join(" ");
    if (label) l.field(label, words);
    else l.text(words);
  }
  if (shown < lines.length || budget <= 0) {
    l.gap(4);
    l.text("Excerpt only: the evidence bundle's transcript.json holds the whole transcript.", { size: 8.5, color: MUTED });
  }
}

function evidenceSection(l: Layout, { evidence, call }: ReportInput) {
  l.heading("Evidence");
  if (evidence.length === 0) {
    l.text("No recording or capture is stored for this call.", { color: MUTED });
    return;
  }
  for (const file of evidence) {
    l.ensure(30);
    l.field(file.name, `${bytes(file.size)} (${file.size} bytes), ${file.content_type}`);
    l.field("SHA-256", file.sha256, "mono");
    l.gap(4);
  }
  const note = `SHA-256 of the files as stored. GET /api/calls/${call.id}/export returns them in a zip`;
  l.text(`${note} whose manifest.json lists the same hashes.`, { size: 8.5, color: MUTED });
}

/** The report's bytes. */
export async function renderCallReport(input: ReportInput): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const { call } = input;
  doc.setTitle(`Call ${call.id}: evidence report`);
  doc.setSubject(input.analysis ? `${input.analysis.recommendation}, fraud probability ${input.analysis.probability}%` : "not analysed");
  doc.setProducer("Call Shield");
  doc.setCreator("Call Shield");
  doc.setCreationDate(new Date(input.generatedAt));
  const fonts: Fonts = {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
    mono: await doc.embedFont(StandardFonts.Courier),
  };
  const l = new Layout(doc, fonts);
  l.text("Call evidence report", { font: "bold", size: 20 });
  l.text(`Call ${call.id}`, { font: "mono", size: 9.5, color: MUTED });
  l.text(`Generated ${when(input.generatedAt)}${input.account ? ` for ${input.account}` : ""}`, { size: 9.5, color: MUTED });
  verdictSection(l, input);
  callSection(l, input);
  transcriptSection(l, input);
  evidenceSection(l, input);
  l.footers(call.id);
  return doc.save();
}
