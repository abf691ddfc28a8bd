// The cue families match what was meant, however it was said or heard: numbers as words or digits,
// the recogniser's usual mishearings, and a negated ask is no ask.
import { describe, expect, it } from "vitest";
import { type CueFamily, cueHits, normaliseForCues } from "../../../worker/providers/analysis/embedded/cues.ts";

const families = (text: string): CueFamily[] => cueHits(normaliseForCues(text)).map((h) => h.family);

describe("cue families", () => {
  it("reads numbers said or written alike", () => {
    expect(normaliseForCues("Press ONE now, or call 1-800-555-0100.")).toBe(" press 1 now or call 1 800 555 0100 ");
    for (const text of ["press one to speak with an agent", "Press 1 to speak with an agent.", "please press the number one"])
      expect(families(text), text).toContain("ask_press");
    expect(families("call us back at one eight hundred five five five")).toContain("ask_callback");
  });

  it("hears the organisation through a recogniser's mishearing", () => {
    expect(families("this call is from so shell security administration")).toContain("imp_government");
    expect(families("an order was placed on your amazin account")).toContain("imp_retail");
    expect(families("calling from micro soft windows support")).toContain("imp_tech");
  });

  it("takes a warning for reassurance, not an ask", () => {
    const warned = families("We never take payment by gift card, and we will never ask for your PIN over the phone.");
    expect(warned).not.toContain("ask_gift_card");
    expect(warned).toContain("genuine_warning");
    expect(families("You need to pay it today in Google Play gift cards.")).toContain("ask_gift_card");
    expect(families("You are not under arrest and there is no warrant.")).not.toContain("pressure_legal");
    expect(families("There is a warrant for your arrest.")).toContain("pressure_legal");
  });

  it("tells a gift card asked for from one offered", () => {
    expect(families("As a thank you, you'll receive a $25 gift card with your policy.")).not.toContain("ask_gift_card");
    expect(families("Go to the store, buy two Target gift cards and read me the numbers on the back of the card.")).toContain(
      "ask_gift_card",
    );
  });

  it("names the robocall's form and the callee's doubts", () => {
    expect(families("This is an automated message. To be removed from our list, press 9.")).toEqual(
      expect.arrayContaining(["robo_message", "robo_opt_out", "ask_press"]),
    );
    expect(families("Is this a scam? I never ordered an iPhone.")).toContain("callee_suspects");
    expect(families("I'm not giving you my card number.")).toContain("callee_refuses");
  });
});
