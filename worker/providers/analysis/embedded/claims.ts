// Who the speakers say they are: an organisation claimed ("this is the fraud team at Barclays")
// and a person's name and rank ("Officer Daniel Brooks").
import { ENTITIES, type Entity } from "./lexicon.ts";
import { re } from "./pattern.ts";
import { quoteOf } from "./transcript.ts";
import type { EntityClaim, Sentence } from "./types.ts";

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function claimPatterns(entity: Entity): RegExp[] {
  const alias = `(?:${entity.aliases.map(escape).join("|")})`;
  const filler = String.raw`(?:the\s+|your\s+)?(?:[\w']+\s+){0,3}?`;
  return [
    re`\b(?:calling|call(?:ing)? you|call|message|notice|notification|alert|reminder|reaching out|contacting you)
      \s+(?:\w+\s+){0,2}?(?:from|on behalf of|with|by)\s+${filler}${alias}\b`,
    re`\b(?:this is|it's|i'm|i am|we're|we are)\s+(?:[\w.']+\s+){0,4}?(?:from|with)\s+(?:the\s+|your\s+)?(?:\w+\s+){0,2}?${alias}\b`,
    re`\b(?:this is|you've reached|you have reached|welcome to|thank you for calling|thanks for calling)
      \s+(?:the\s+|your\s+)?${alias}\b`,
    re`\b(?:officer|agent|inspector|investigator|detective|representative|specialist|technician|analyst)
      \s+(?:[\w.]+\s+){0,2}?(?:with|from|of|at)\s+(?:the\s+)?${alias}\b`,
    re`\b(?:department|team|office|division|unit|desk) (?:of|at) (?:the\s+|your\s+)?${alias}\b`,
  ];
}

function referencePattern(entity: Entity): RegExp {
  const alias = `(?:${entity.aliases.map(escape).join("|")})`;
  const thing =
    "(?:account|card|subscription|membership|order|package|parcel|computer|device|phone|number|benefits|id|licen[cs]e|bill|service)";
  return re`\byour\s+${alias}\s+(?:\w+\s+)?${thing}\b`;
}

/** Named organisations first, so a generic claim in the same sentence can be skipped. */
const COMPILED = [...ENTITIES]
  .sort((a, b) => Number(b.named) - Number(a.named))
  .map((entity) => ({ entity, claims: claimPatterns(entity), reference: referencePattern(entity) }));

/** Every alias as a whole word, in one pass: a sentence is tried against only the organisations it names. */
const ALIAS_OWNERS = new Map<string, Entity[]>();
for (const entity of ENTITIES) for (const alias of entity.aliases) ALIAS_OWNERS.set(alias, [...(ALIAS_OWNERS.get(alias) ?? []), entity]);
const ANY_ALIAS = new RegExp(
  `(?<![\\w])(?:${[...ALIAS_OWNERS.keys()]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join("|")})(?![\\w])`,
  "g",
);

function entitiesNamedIn(lower: string): Set<Entity> {
  const named = new Set<Entity>();
  for (const m of lower.matchAll(ANY_ALIAS)) for (const entity of ALIAS_OWNERS.get(m[0]) ?? []) named.add(entity);
  return named;
}

export type Claims = { claims: EntityClaim[]; references: EntityClaim[] };

/** Every organisation a speaker claims to speak for, or refers to as the callee's ("your Amazon account"). */
export function findClaims(sentences: Sentence[]): Claims {
  const claims: EntityClaim[] = [];
  const references: EntityClaim[] = [];
  for (const sentence of sentences) {
    let namedClaim = false;
    const named = entitiesNamedIn(sentence.lower);
    if (!named.size) continue;
    for (const { entity, claims: patterns, reference } of COMPILED) {
      if (!named.has(entity)) continue;
      const base = { name: entity.name, kind: entity.kind, named: entity.named, speaker: sentence.speaker, order: sentence.order };
      // "Microsoft technical support" is Microsoft, not also "technical support".
      const match: RegExpExecArray | null | undefined =
        namedClaim && !entity.named ? null : patterns.map((p) => p.exec(sentence.lower)).find((m) => m);
      if (match) claims.push({ ...base, quote: quoteOf(sentence, match.index) });
      namedClaim ||= Boolean(match) && entity.named;
      const ref = reference.exec(sentence.lower);
      if (ref) references.push({ ...base, quote: quoteOf(sentence, ref.index) });
    }
  }
  return { claims, references };
}

/** How prose names the organisation: "Chase", "the bank". */
export function entityPhrase(claim: EntityClaim): string {
  return claim.named ? claim.name : `the ${claim.name.toLowerCase()}`;
}

/** The organisation the call is about: named before generic, the caller's before the callee's, earliest first. */
export function mainClaim(claims: EntityClaim[]): EntityClaim | null {
  const rank = (c: EntityClaim) => (c.named ? 0 : 2) + (c.speaker === "callee" ? 1 : 0);
  return [...claims].sort((a, b) => rank(a) - rank(b) || a.order - b.order)[0] ?? null;
}

const TITLE = String.raw`(?:[Oo]fficer|[Aa]gent|[Dd]etective|[Ss]ergeant|[Ii]nspector|[Cc]onstable|Dr\.?|Mr\.?|Mrs\.?|Ms\.?|Captain|DC|PC)`;
const NAME = re`\b(?:[Mm]y name is|[Tt]his is|I am|I'm|[Ii]t's)\s+((?:${TITLE}\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)`;

const NOT_NAMES = new Set("the a an your our we it just not calling about regarding important urgent final".split(" "));

/** The first name the caller gives, unless it is an organisation's name ("This is Chase"). */
export function callerName(sentences: Sentence[]): string | null {
  for (const sentence of sentences) {
    if (sentence.speaker === "callee") continue;
    const name = NAME.exec(sentence.text)?.[1];
    if (!name) continue;
    const lower = name.toLowerCase();
    if (NOT_NAMES.has(lower.split(" ")[0] ?? "")) continue;
    if (ENTITIES.some((e) => e.aliases.some((a) => lower === a || lower.startsWith(`${a} `) || lower.endsWith(` ${a}`)))) continue;
    return name.charAt(0).toUpperCase() + name.slice(1);
  }
  return null;
}
