// The embedded analyser's word lists: organisations scammers claim to be, number ranges that cost
// the caller money, and the English function words the language guess counts.
import type { EntityKind } from "./types.ts";

export type Entity = { name: string; kind: EntityKind; aliases: string[]; named: boolean };

/** Organisations by name and generic ones ("the bank"); a named claim wins over a generic one. */
export const ENTITIES: Entity[] = [
  { name: "IRS", kind: "tax", named: true, aliases: ["irs", "internal revenue service"] },
  { name: "HMRC", kind: "tax", named: true, aliases: ["hmrc", "revenue and customs", "revenue & customs"] },
  { name: "CRA", kind: "tax", named: true, aliases: ["cra", "canada revenue agency", "canada revenue"] },
  { name: "ATO", kind: "tax", named: true, aliases: ["ato", "australian taxation office"] },
  {
    name: "Social Security Administration",
    kind: "government",
    named: true,
    aliases: ["social security administration", "social security office", "ssa"],
  },
  {
    name: "US Treasury",
    kind: "government",
    named: true,
    aliases: ["us treasury", "u.s. treasury", "department of the treasury", "treasury department", "treasury"],
  },
  { name: "Government", kind: "government", named: false, aliases: ["federal government", "government", "local council", "council"] },
  { name: "Embassy", kind: "government", named: false, aliases: ["embassy", "consulate"] },
  { name: "Medicare", kind: "government", named: true, aliases: ["medicare"] },
  {
    name: "Immigration services",
    kind: "government",
    named: true,
    aliases: ["uscis", "immigration services", "immigration department", "home office", "department of homeland security"],
  },
  { name: "Department of Justice", kind: "police", named: true, aliases: ["department of justice", "doj"] },
  { name: "FBI", kind: "police", named: true, aliases: ["fbi", "federal bureau of investigation"] },
  { name: "Metropolitan Police", kind: "police", named: true, aliases: ["metropolitan police", "met police", "scotland yard"] },
  { name: "RCMP", kind: "police", named: true, aliases: ["rcmp", "royal canadian mounted police"] },
  { name: "Police", kind: "police", named: false, aliases: ["police department", "police", "sheriff's office", "sheriff", "us marshals"] },
  { name: "Chase", kind: "bank", named: true, aliases: ["chase", "jpmorgan chase", "jp morgan"] },
  { name: "Bank of America", kind: "bank", named: true, aliases: ["bank of america"] },
  { name: "Wells Fargo", kind: "bank", named: true, aliases: ["wells fargo"] },
  { name: "Citibank", kind: "bank", named: true, aliases: ["citibank", "citi bank"] },
  { name: "Capital One", kind: "bank", named: true, aliases: ["capital one"] },
  { name: "TD Bank", kind: "bank", named: true, aliases: ["td bank", "td canada trust"] },
  { name: "RBC", kind: "bank", named: true, aliases: ["rbc", "royal bank"] },
  { name: "Scotiabank", kind: "bank", named: true, aliases: ["scotiabank", "scotia bank"] },
  { name: "Barclays", kind: "bank", named: true, aliases: ["barclays"] },
  { name: "HSBC", kind: "bank", named: true, aliases: ["hsbc"] },
  { name: "Lloyds", kind: "bank", named: true, aliases: ["lloyds"] },
  { name: "NatWest", kind: "bank", named: true, aliases: ["natwest", "nat west"] },
  { name: "Santander", kind: "bank", named: true, aliases: ["santander"] },
  { name: "Halifax", kind: "bank", named: true, aliases: ["halifax"] },
  { name: "Nationwide", kind: "bank", named: true, aliases: ["nationwide"] },
  { name: "Monzo", kind: "bank", named: true, aliases: ["monzo"] },
  { name: "Revolut", kind: "bank", named: true, aliases: ["revolut"] },
  { name: "PayPal", kind: "bank", named: true, aliases: ["paypal", "pay pal"] },
  { name: "Visa", kind: "card", named: true, aliases: ["visa"] },
  { name: "Mastercard", kind: "card", named: true, aliases: ["mastercard", "master card"] },
  { name: "American Express", kind: "card", named: true, aliases: ["american express", "amex"] },
  {
    name: "Card services",
    kind: "card",
    named: false,
    aliases: ["cardholder services", "card holder services", "card member services", "card services", "credit card services"],
  },
  { name: "Microsoft", kind: "tech", named: true, aliases: ["microsoft", "windows"] },
  { name: "Apple", kind: "tech", named: true, aliases: ["apple", "icloud"] },
  { name: "Amazon", kind: "tech", named: true, aliases: ["amazon", "amazon prime"] },
  { name: "Google", kind: "tech", named: true, aliases: ["google"] },
  { name: "Norton", kind: "tech", named: true, aliases: ["norton"] },
  { name: "McAfee", kind: "tech", named: true, aliases: ["mcafee", "mc afee"] },
  { name: "Geek Squad", kind: "tech", named: true, aliases: ["geek squad"] },
  {
    name: "Technical support",
    kind: "tech",
    named: false,
    aliases: ["technical support", "tech support", "technical department", "computer security department"],
  },
  { name: "Verizon", kind: "carrier", named: true, aliases: ["verizon"] },
  { name: "AT&T", kind: "carrier", named: true, aliases: ["at&t", "at and t", "at & t"] },
  { name: "T-Mobile", kind: "carrier", named: true, aliases: ["t-mobile", "t mobile"] },
  { name: "Vodafone", kind: "carrier", named: true, aliases: ["vodafone"] },
  { name: "EE", kind: "carrier", named: true, aliases: ["ee"] },
  { name: "O2", kind: "carrier", named: true, aliases: ["o2"] },
  { name: "Rogers", kind: "carrier", named: true, aliases: ["rogers"] },
  { name: "Telus", kind: "carrier", named: true, aliases: ["telus"] },
  {
    name: "Mobile carrier",
    kind: "carrier",
    named: false,
    aliases: ["phone company", "mobile provider", "mobile carrier", "mobile network", "network provider", "phone provider"],
  },
  { name: "UPS", kind: "delivery", named: true, aliases: ["ups"] },
  { name: "FedEx", kind: "delivery", named: true, aliases: ["fedex", "fed ex"] },
  { name: "DHL", kind: "delivery", named: true, aliases: ["dhl"] },
  { name: "USPS", kind: "delivery", named: true, aliases: ["usps", "postal service", "post office"] },
  { name: "Royal Mail", kind: "delivery", named: true, aliases: ["royal mail"] },
  { name: "Canada Post", kind: "delivery", named: true, aliases: ["canada post"] },
  { name: "Evri", kind: "delivery", named: true, aliases: ["evri", "hermes"] },
  { name: "DPD", kind: "delivery", named: true, aliases: ["dpd"] },
  { name: "Courier", kind: "delivery", named: false, aliases: ["courier company", "delivery company", "shipping company"] },
  { name: "Con Edison", kind: "utility", named: true, aliases: ["con edison", "con ed", "coned"] },
  { name: "PG&E", kind: "utility", named: true, aliases: ["pg&e", "pg and e", "pacific gas"] },
  { name: "Duke Energy", kind: "utility", named: true, aliases: ["duke energy"] },
  { name: "British Gas", kind: "utility", named: true, aliases: ["british gas"] },
  { name: "Hydro One", kind: "utility", named: true, aliases: ["hydro one"] },
  {
    name: "Utility company",
    kind: "utility",
    named: false,
    aliases: ["electric company", "power company", "gas company", "utility company", "energy company", "water company"],
  },
  { name: "Tax office", kind: "tax", named: false, aliases: ["tax office", "tax department", "tax authority", "revenue service"] },
  { name: "Bank", kind: "bank", named: false, aliases: ["fraud department", "fraud prevention team", "fraud team", "bank"] },
];

/** The category a claim of each kind of organisation points to. */
export const KIND_CATEGORY: Record<EntityKind, string> = {
  bank: "bank_impersonation",
  card: "credit_card_scam",
  tax: "government_impersonation",
  police: "government_impersonation",
  government: "government_impersonation",
  carrier: "carrier_impersonation",
  tech: "tech_support_scam",
  delivery: "delivery_scam",
  utility: "utility_scam",
};

export type NumberRange = { prefix: string; label: string };

/**
 * Premium-rate and shared-cost ranges (E.164, without "+"): a call to one costs the caller far
 * more than a normal call, which is what international revenue share fraud and call-back bait
 * rely on. Deliberately short; a carrier's full list belongs in configuration, not here.
 */
export const PREMIUM_RANGES: NumberRange[] = [
  { prefix: "1900", label: "US/Canada premium-rate (+1 900)" },
  { prefix: "449", label: "UK premium-rate (+44 9)" },
  { prefix: "4487", label: "UK service numbers (+44 87)" },
  { prefix: "4470", label: "UK personal numbers (+44 70)" },
  { prefix: "49900", label: "Germany premium-rate (+49 900)" },
  { prefix: "49137", label: "Germany mass-calling (+49 137)" },
  { prefix: "3389", label: "France premium-rate (+33 89)" },
  { prefix: "3989", label: "Italy premium-rate (+39 89)" },
  { prefix: "34803", label: "Spain premium-rate (+34 803)" },
  { prefix: "34806", label: "Spain premium-rate (+34 806)" },
  { prefix: "34807", label: "Spain premium-rate (+34 807)" },
  { prefix: "61190", label: "Australia premium-rate (+61 190)" },
  { prefix: "881", label: "Global satellite service (+881)" },
  { prefix: "882", label: "International networks (+882)" },
  { prefix: "883", label: "International networks (+883)" },
  { prefix: "979", label: "International premium-rate service (+979)" },
];

/**
 * Caller-ID ranges consumer-protection agencies have warned about for one-ring ("wangiri")
 * call-back bait: NANP Caribbean area codes that look domestic but bill internationally, and a few
 * country codes seen in such campaigns. A one-ring call from one of these adds weight; it is not
 * a verdict on its own.
 */
export const CALLBACK_BAIT_RANGES: NumberRange[] = [
  { prefix: "1268", label: "Antigua and Barbuda (+1 268)" },
  { prefix: "1284", label: "British Virgin Islands (+1 284)" },
  { prefix: "1473", label: "Grenada (+1 473)" },
  { prefix: "1649", label: "Turks and Caicos (+1 649)" },
  { prefix: "1767", label: "Dominica (+1 767)" },
  { prefix: "1809", label: "Dominican Republic (+1 809)" },
  { prefix: "1876", label: "Jamaica (+1 876)" },
  { prefix: "222", label: "Mauritania (+222)" },
  { prefix: "224", label: "Guinea (+224)" },
  { prefix: "225", label: "Côte d'Ivoire (+225)" },
  { prefix: "232", label: "Sierra Leone (+232)" },
  { prefix: "243", label: "DR Congo (+243)" },
  { prefix: "252", label: "Somalia (+252)" },
  { prefix: "882", label: "International networks (+882)" },
  { prefix: "883", label: "International networks (+883)" },
];

/** Countries whose calls fall under the US TCPA or Canada's telemarketing rules (ISO codes and names). */
export const NORTH_AMERICA = new Set(["us", "usa", "united states", "ca", "can", "canada", "pr", "puerto rico"]);

/** Common English function words; their share of the words is the language guess. */
export const ENGLISH_WORDS = new Set(
  (
    "the a an and or but if to of in on at for with from by about as is are was were be been am i you he she it we they me " +
    "him her us them my your his its our their this that these those what which who when where why how not no yes do does " +
    "did have has had will would can could should shall may might must there here so just okay ok please thank thanks hello " +
    "hi bye sir madam going get got need want know call calling"
  ).split(" "),
);

export const NUMBER_WORD = "(?:[0-9][0-9,.]*|one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|hundred|thousand)";

export const DIGIT_WORD = "(?:[0-9]|one|two|three|four|five|six|seven|eight|nine|zero|star|pound|hash)";
