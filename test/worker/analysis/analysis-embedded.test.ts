// The embedded analyser on its own: the verdict always fits the schema, red flags quote what was
// heard, call facts alone (one ring, premium numbers) give a verdict, ordinary calls are allowed,
// the caller's side weighs more, and the same input always gives the same output.
import { describe, expect, it } from "vitest";
import { type AnalysisInput, type CallFacts, VerdictSchema } from "../../../worker/providers/analysis/analyser.ts";
import { analyseEmbedded, EMBEDDED_MODEL, EMBEDDED_PROMPT_VERSION, EmbeddedAnalyser } from "../../../worker/providers/analysis/embedded.ts";
import { BLOCK_MIN, REVIEW_MIN } from "../../../worker/providers/analysis/embedded/decision.ts";
import { CORPUS, type CorpusEntry, inputOf } from "./corpus/index.ts";

const US_CALL: Partial<CallFacts> = { ani: "+14155550123", dialed: "+12125550188", destCountry: "US" };
const silent = (call: Partial<CallFacts>): AnalysisInput => inputOf({ segments: [], call: { billsec: null, durationSec: null, ...call } });
const turns = (...list: [CorpusEntry["segments"][number]["speaker"], string][]) => list.map(([speaker, text]) => ({ speaker, text }));

const TECH_SCAM = turns(
  ["caller", "Hello, this is Daniel calling from Microsoft technical support. Your computer has been hacked and is sending out viruses."],
  ["callee", "Oh no, what should I do?"],
  ["caller", "Please download AnyDesk so I can access your computer, and do not tell anyone at your bank about this call."],
  ["callee", "All right."],
  ["caller", "The repair fee is 300 dollars. You need to pay it today in Google Play gift cards."],
);

/** Each red flag's quote, when it has one, without the ellipses of a shortened sentence. */
function quotesOf(flags: string[] | null): string[] {
  return (flags ?? []).flatMap((flag) => [...(/: "(.*)"/.exec(flag)?.slice(1) ?? [])]).flatMap((q) => q.split("…").filter(Boolean));
}

describe("embedded analyser: result and schema", () => {
  it("returns the verdict with the embedded provider, no tokens and no cost", async () => {
    const result = await new EmbeddedAnalyser().analyse(inputOf({ segments: TECH_SCAM }));
    expect(result).toMatchObject({
      provider: "embedded",
      model: EMBEDDED_MODEL,
      promptVersion: EMBEDDED_PROMPT_VERSION,
      inputTokens: 0,
      outputTokens: 0,
      costMicros: 0,
    });
    expect(Number.isInteger(result.latencyMs) && result.latencyMs >= 0).toBe(true);
    expect(VerdictSchema.parse(result.verdict)).toEqual(result.verdict);
  });

  it("passes VerdictSchema.parse for every corpus call and for edge cases", () => {
    const longScam = Array.from(
      { length: 40 },
      (_, i) => `Sentence ${i}: press 1, buy gift cards, read me the verification code, ${"x".repeat(300)}.`,
    );
    const edge: AnalysisInput[] = [
      silent({}),
      { ...silent({}), text: "", segments: [] },
      { ...silent({ ...US_CALL, answered: true, billsec: 30 }), text: "Hello? Hello? Is anyone there?" },
      inputOf({ segments: [{ speaker: "caller", text: longScam.join(" ") }] }),
      inputOf({ segments: [{ speaker: "caller", text: "Hola, le llamo del banco. Necesito el código que le enviamos por mensaje." }] }),
      inputOf({ segments: [{ speaker: "callee", text: "...!!!   ???" }] }),
    ];
    for (const input of [...CORPUS.map(inputOf), ...edge]) {
      const verdict = analyseEmbedded(input);
      expect(() => VerdictSchema.parse(verdict), JSON.stringify(verdict)).not.toThrow();
      // Spoken calls: review from REVIEW_MIN, block only from BLOCK_MIN; calls nobody spoke in: the dashboard's 30 and 70.
      const heard = input.text.trim().length > 0 && /[a-z]/i.test(input.text);
      const [review, block] = heard ? [REVIEW_MIN, BLOCK_MIN] : [30, 70];
      if (verdict.recommendation === "allow") expect(verdict.probability, input.text).toBeLessThan(review);
      else expect(verdict.probability, input.text).toBeGreaterThanOrEqual(review);
      if (verdict.recommendation === "block") expect(verdict.probability).toBeGreaterThanOrEqual(block);
      for (const [i, flag] of (verdict.red_flags ?? []).entries()) expect(flag.startsWith(`${i + 1}. `)).toBe(true);
    }
  });

  it("keeps at most 20 red flags and 30 keywords on a call full of signals", () => {
    const sentences = TECH_SCAM.map((t) => t.text).join(" ");
    const verdict = analyseEmbedded(inputOf({ segments: [{ speaker: "caller", text: `${sentences} `.repeat(10) }] }));
    expect(verdict.red_flags!.length).toBeLessThanOrEqual(20);
    expect(verdict.keywords!.length).toBeLessThanOrEqual(30);
  });
});

describe("embedded analyser: what it heard", () => {
  it("numbers red flags that quote the transcript word for word", () => {
    let quoted = 0;
    for (const entry of CORPUS) {
      const input = inputOf(entry);
      const verdict = analyseEmbedded(input);
      const heard = input.segments.map((s) => s.text.replace(/\s+/g, " ")).join("\n");
      for (const quote of quotesOf(verdict.red_flags)) {
        expect(heard, `${entry.id}: ${quote}`).toContain(quote.trim());
        quoted++;
      }
    }
    expect(quoted).toBeGreaterThan(100);
  });

  it("catches a two-sided tech-support scam: authority, remote access, secrecy and gift cards", () => {
    const verdict = analyseEmbedded(inputOf({ segments: TECH_SCAM, call: US_CALL }));
    expect(verdict).toMatchObject({ recommendation: "block", category: "tech_support_scam", entity: "Microsoft", language: "en" });
    expect(verdict.caller_identity).toBe("Daniel, Microsoft");
    expect(verdict.red_flags).toContainEqual(
      expect.stringMatching(/^\d+\. Asks to install software or give access to a computer: "Please download AnyDesk/),
    );
    expect(verdict.red_flags).toContainEqual(
      expect.stringMatching(/Asks for payment in gift cards: "You need to pay it today in Google Play gift cards"/),
    );
    expect(verdict.keywords).toEqual(expect.arrayContaining(["gift cards", "remote access", "microsoft"]));
    // In the order they were said: the claim, the alarm, the ask for access, then the gift cards.
    const order = ["Microsoft technical support", "hacked", "AnyDesk", "gift cards"].map((w) =>
      verdict.red_flags!.findIndex((f) => f.includes(w)),
    );
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(verdict.tcpa_comment).toMatch(/TCPA/);
  });

  it("weighs the caller's side: the same words from the callee count for less", () => {
    const swapped = TECH_SCAM.map((t) => ({ ...t, speaker: t.speaker === "caller" ? ("callee" as const) : ("caller" as const) }));
    const asCaller = analyseEmbedded(inputOf({ segments: TECH_SCAM }));
    const asCallee = analyseEmbedded(inputOf({ segments: swapped }));
    expect(asCallee.probability).toBeLessThan(asCaller.probability);
    expect(asCallee.red_flags!.every((f) => f.endsWith("(said by the callee)"))).toBe(true);
  });

  it("needs a combination, not a keyword: an authority claim alone, or a code alone, is allowed", () => {
    const claimOnly = analyseEmbedded(
      inputOf({ segments: turns(["caller", "Hi, this is Anna from Barclays about your appointment on Monday."]) }),
    );
    const codeOnly = analyseEmbedded(
      inputOf({ segments: turns(["caller", "I've sent you a verification code, type it into the app to finish."]) }),
    );
    const together = analyseEmbedded(
      inputOf({
        segments: turns(
          ["caller", "Hi, this is Anna from the Barclays fraud team. There's a suspicious payment on your account."],
          ["caller", "I've sent you a verification code. Read me the code now so I can stop it, and don't tell the branch staff."],
        ),
      }),
    );
    expect(claimOnly.recommendation).toBe("allow");
    expect(codeOnly.recommendation).toBe("allow");
    expect(together).toMatchObject({ category: "bank_impersonation", entity: "Barclays" });
    expect(together.recommendation).not.toBe("allow");
  });

  it("reads a warning as reassurance, not an ask: 'we will never ask for your PIN'", () => {
    const verdict = analyseEmbedded(
      inputOf({ segments: turns(["caller", "This is your bank. We will never ask you for your PIN or your online banking password."]) }),
    );
    expect(verdict.recommendation).toBe("allow");
    expect(verdict.red_flags!.join(" ")).not.toMatch(/card, account or login secrets/);
    expect(verdict.summary).toMatch(/reassuring: it warns that the organisation never asks/i);
  });

  it("analyses a transcript without segments as one unnamed speaker", () => {
    const text = TECH_SCAM.filter((t) => t.speaker === "caller")
      .map((t) => t.text)
      .join(" ");
    const verdict = analyseEmbedded({ ...inputOf({ segments: [] }), text });
    expect(verdict.recommendation).toBe("block");
  });
});

describe("embedded analyser: call facts", () => {
  it("calls a one-ring call with no speech wangiri and sends it to review", () => {
    const verdict = analyseEmbedded(silent({ ...US_CALL, answered: false, durationSec: 4, hangupBy: "caller" }));
    expect(verdict).toMatchObject({ category: "wangiri", recommendation: "review", language: null });
    expect(verdict.red_flags).toEqual(["1. One-ring call that baits a call-back (rang for 4 s and hung up before anyone answered)"]);
  });

  it("weighs a one-ring call from a call-back bait range more, and a long unanswered ring not at all", () => {
    const plain = analyseEmbedded(silent({ ani: "+14155550123", answered: false, durationSec: 3 }));
    const bait = analyseEmbedded(silent({ ani: "+1 (876) 555-0142", answered: false, durationSec: 3 }));
    expect(bait.probability).toBeGreaterThan(plain.probability);
    expect(bait.red_flags!.join(" ")).toMatch(/Jamaica/);
    const longRing = analyseEmbedded(silent({ answered: false, durationSec: 40 }));
    expect(longRing).toMatchObject({ category: "unknown", recommendation: "allow" });
  });

  it("flags a very short answered call with no speech", () => {
    const verdict = analyseEmbedded(silent({ ...US_CALL, answered: true, billsec: 2, durationSec: 8 }));
    expect(verdict).toMatchObject({ category: "wangiri", recommendation: "review" });
  });

  it("flags a premium-rate destination in any dialing format", () => {
    for (const dialed of ["+1 900 555 0199", "0044 909 879 0123", "011 49 900 1234567", "+979 1234 5678"]) {
      const verdict = analyseEmbedded(silent({ dialed, destCountry: null, answered: true, billsec: 60 }));
      expect(verdict.category, dialed).toBe("premium_rate");
      expect(verdict.recommendation, dialed).not.toBe("allow");
      expect(verdict.red_flags![0], dialed).toMatch(/^1\. Dialed number is premium-rate \(/);
    }
    const ordinary = analyseEmbedded(silent({ dialed: "+442071234567", answered: true, billsec: 60 }));
    expect(ordinary.recommendation).toBe("allow");
  });

  it("counts digits keyed in after an ask for a code, without repeating them", () => {
    const segments = turns(["caller", "This is the fraud department. Please enter the verification code we just sent you on your keypad."]);
    const dtmf = "482917".split("").map((digit, i) => ({ t: 9 + i, digit, channel: "callee" }));
    const without = analyseEmbedded(inputOf({ segments }));
    const keyed = analyseEmbedded(inputOf({ segments, call: { dtmf } }));
    expect(keyed.probability).toBeGreaterThan(without.probability);
    const flags = keyed.red_flags!.join(" ");
    expect(flags).toMatch(/6 digits keyed in/);
    expect(flags).not.toMatch(/482917/);
  });
});

describe("embedded analyser: ordinary calls and the verdict's prose", () => {
  it("allows a benign call that mentions banks, payments and codes", () => {
    const verdict = analyseEmbedded(
      inputOf({
        segments: turns(
          ["caller", "Hi, it's Sam. I'm at the bank paying in the cheque, then I'll pick up the kids."],
          ["callee", "Great. The door code at Mum's is 4 4 1 2, and I'll transfer you the money for the groceries tonight."],
          ["caller", "Thanks, see you later."],
        ),
        call: US_CALL,
      }),
    );
    expect(verdict).toMatchObject({ recommendation: "allow", category: "legitimate", language: "en" });
    expect(verdict.probability).toBeLessThan(30);
    expect(verdict.red_flags).toEqual([]);
    expect(verdict.tcpa_comment).toMatch(/^No TCPA concern/);
  });

  it("says the TCPA is not applicable outside North America, and comments on a North American robocall", () => {
    const uk = analyseEmbedded(
      inputOf({ segments: TECH_SCAM, call: { ani: "+442071234567", dialed: "+447700900123", destCountry: "GB" } }),
    );
    expect(uk.tcpa_comment).toMatch(/^Not applicable/);
    const robocall = CORPUS.find((e) => e.id === "robo-car-warranty")!;
    const us = analyseEmbedded(inputOf(robocall));
    expect(us.tcpa_comment).toMatch(/Prerecorded-voice call: the TCPA/);
    const unknown = analyseEmbedded({
      ...inputOf({ segments: TECH_SCAM }),
      call: { ...inputOf({ segments: [] }).call, ani: null, dialed: null, destCountry: null },
    });
    expect(unknown.tcpa_comment).toBeNull();
  });

  it("detects English, keeps a transcriber's language, and returns null for clearly other languages", () => {
    expect(analyseEmbedded(inputOf({ segments: TECH_SCAM })).language).toBe("en");
    const spanish = turns(["caller", "Buenos días, le llamo del banco. Necesito su número de cuenta y el código que le enviamos."]);
    expect(analyseEmbedded(inputOf({ segments: spanish })).language).toBeNull();
    expect(analyseEmbedded({ ...inputOf({ segments: spanish }), language: "es" }).language).toBe("es");
    expect(analyseEmbedded({ ...inputOf({ segments: TECH_SCAM }), language: "English" }).language).toBe("en");
  });

  it("is deterministic: the same input gives the same verdict", async () => {
    const analyser = new EmbeddedAnalyser();
    for (const entry of CORPUS.filter((_, i) => i % 5 === 0)) {
      const first = await analyser.analyse(inputOf(entry));
      const second = await analyser.analyse(inputOf(entry));
      expect(second.verdict, entry.id).toEqual(first.verdict);
      expect(JSON.stringify(second.verdict)).toBe(JSON.stringify(first.verdict));
    }
  });
});
