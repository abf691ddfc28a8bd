// The calls of one account, as SQL files of multi-row INSERTs for `wrangler d1 execute --file`:
// calls spread over `days` days ending now, and for the analysed share of them the rows the
// pipeline writes (analyses, transcripts, call_entities, call_keywords, and the verdict copied onto
// the call: probability, category, recommendation, transcript_summary). Deterministic for a seed.
import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** What the generated data holds, so the bench can ask for values that exist. */
export const FACETS = {
  category: "tech_support_scam",
  entity: "Microsoft",
  keyword: "remote access",
  /** A word of the summaries and transcripts of government impersonation calls only. */
  summaryWord: "warrant",
  /** The callers' numbers are +1 415 555 0000-9999 and a few other ranges; this finds a handful. */
  aniFragment: "4155550123",
};

const SCAMS = [
  {
    category: "tech_support_scam",
    entities: ["Microsoft", "Apple", "Norton"],
    keywords: ["remote access", "virus", "refund", "gift card"],
    summary: (e) => `The caller said he was from ${e} support, claimed the computer was infected and asked for remote access.`,
    turns: (e) => [
      `Caller: Hello, this is ${e} technical support, we detected a virus on your computer.`,
      "Callee: Oh no, what do I need to do?",
      "Caller: Please install our remote access tool so our technician can remove it, the fee is refundable.",
    ],
  },
  {
    category: "government_impersonation",
    entities: ["IRS", "Social Security Administration", "US Marshals"],
    keywords: ["arrest warrant", "back taxes", "gift card", "social security"],
    summary: (e) => `The caller claimed to be from the ${e}, threatened an arrest warrant and demanded payment today.`,
    turns: (e) => [
      `Caller: This is officer Miller with the ${e}, there is a warrant out for your arrest.`,
      "Callee: A warrant? For what?",
      "Caller: Unpaid back taxes. You must pay today with gift cards or the police will come to your house.",
    ],
  },
  {
    category: "bank_impersonation",
    entities: ["Chase", "Wells Fargo", "Bank of America"],
    keywords: ["verification code", "suspicious payment", "account locked"],
    summary: (e) => `The caller said he was from ${e} fraud prevention and asked for the verification code sent by text.`,
    turns: (e) => [
      `Caller: Hello, I am calling from the ${e} fraud department about a suspicious payment on your account.`,
      "Callee: I did not make any payment.",
      "Caller: Then I need the verification code we just sent to your phone to lock the account.",
    ],
  },
  {
    category: "credit_card_scam",
    entities: ["Visa", "Mastercard", "American Express"],
    keywords: ["card number", "interest rate", "verification code"],
    summary: (e) => `The caller offered to lower the interest rate on a ${e} card and asked for the card number.`,
    turns: (e) => [
      `Caller: This is card services for your ${e} account, you qualify for a lower interest rate.`,
      "Callee: How does that work?",
      "Caller: I just need to confirm the card number and the expiry date on the card.",
    ],
  },
  {
    category: "delivery_scam",
    entities: ["FedEx", "UPS", "USPS"],
    keywords: ["unpaid fee", "parcel", "card number"],
    summary: (e) => `The caller said a ${e} parcel was held for an unpaid fee and asked for card details to release it.`,
    turns: (e) => [
      `Caller: This is ${e}, your parcel could not be delivered because of an unpaid customs fee.`,
      "Callee: I am not expecting anything.",
      "Caller: The fee is only two dollars, please give me your card number and we deliver tomorrow.",
    ],
  },
];

const ORDINARY = [
  {
    summary: "A customer called to move an appointment to Thursday afternoon; nothing asked for.",
    turns: ["Caller: Hi, I would like to move my appointment to Thursday afternoon.", "Callee: Sure, three o'clock works."],
  },
  {
    summary: "A delivery driver asked for the gate code to drop off groceries.",
    turns: ["Caller: Hello, I am outside with your groceries, what is the gate code?", "Callee: It is the blue door, I will come down."],
  },
  {
    summary: "A friend called about dinner plans for the weekend.",
    turns: ["Caller: Are we still on for dinner on Saturday?", "Callee: Yes, let us meet at eight at the usual place."],
  },
  {
    summary: "A pharmacy called to say a prescription was ready for pickup.",
    turns: ["Caller: This is the pharmacy, your prescription is ready for pickup.", "Callee: Great, I will come by after work."],
  },
];

/** A small fast PRNG (mulberry32), so every run seeds the same calls. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (rand, n) => {
  let s = "";
  for (let i = 0; i < n; i++) s += Math.floor(rand() * 16).toString(16);
  return s;
};

/** A UUID v7 for the instant `ms`, as the Worker's ids are. */
function uuidv7(ms, rand) {
  const t = ms.toString(16).padStart(12, "0");
  const variant = (8 + Math.floor(rand() * 4)).toString(16);
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${hex(rand, 3)}-${variant}${hex(rand, 3)}-${hex(rand, 12)}`;
}

/** D1 refuses a statement over 100 kB (SQLITE_TOOBIG), locally as deployed. */
const MAX_STATEMENT = 95_000;

const quote = (v) => (v === null || v === undefined ? "NULL" : typeof v === "number" ? String(v) : `'${String(v).replace(/'/g, "''")}'`);

const CALL_COLUMNS = [
  "id",
  "customer_id",
  "sip_call_id",
  "origin",
  "direction",
  "status",
  "src_ip",
  "ani",
  "dialed",
  "dest_country",
  "dest_host",
  "dest_port",
  "codec",
  "hangup_by",
  "sip_code",
  "end_reason",
  "started_at",
  "answered_at",
  "ended_at",
  "duration_sec",
  "billsec",
  "charged_micros",
  "recording_wav_path",
  "recording_available",
  "transcript_status",
  "analysis_status",
  "transcript_summary",
  "analysis_id",
  "probability",
  "category",
  "recommendation",
  "created_at",
  "updated_at",
];
const ANALYSIS_COLUMNS = [
  "id",
  "customer_id",
  "call_id",
  "ai_mode",
  "provider",
  "model",
  "prompt_version",
  "title",
  "probability",
  "category",
  "entity",
  "summary",
  "recommendation",
  "keywords",
  "red_flags",
  "created_at",
];
const TRANSCRIPT_COLUMNS = ["id", "customer_id", "call_id", "provider", "model", "language", "audio_seconds", "text", "created_at"];

/**
 * Writes the SQL into `dir` as files of at most `callsPerFile` calls (with their rows), and returns
 * their paths and the counts written. `analysedShare` of the answered calls have a verdict and a
 * transcript; `scamShare` of those are scams of SCAMS (each with an entity and keywords).
 */
export function writeSeed({ dir, customerId, calls, days = 90, analysedShare = 0.7, scamShare = 0.25, callsPerFile = 25_000, seed = 11 }) {
  const rand = random(seed);
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const end = Date.now();
  const span = days * 86_400_000;
  const counts = { calls: 0, analyses: 0, transcripts: 0, entities: 0, keywords: 0 };
  const files = [];
  const tables = { calls: [], analyses: [], transcripts: [], call_entities: [], call_keywords: [] };
  const columns = {
    calls: CALL_COLUMNS,
    analyses: ANALYSIS_COLUMNS,
    transcripts: TRANSCRIPT_COLUMNS,
    call_entities: ["customer_id", "call_id", "entity", "started_at"],
    call_keywords: ["customer_id", "call_id", "keyword", "started_at"],
  };
  const flush = () => {
    const out = [];
    for (const [table, rows] of Object.entries(tables)) {
      const head = `INSERT INTO ${table} (${columns[table].join(", ")}) VALUES\n`;
      let values = [];
      let size = head.length;
      for (const row of rows) {
        if (values.length && size + row.length + 2 > MAX_STATEMENT) {
          out.push(`${head}${values.join(",\n")};`);
          values = [];
          size = head.length;
        }
        values.push(row);
        size += row.length + 2;
      }
      if (values.length) out.push(`${head}${values.join(",\n")};`);
      rows.length = 0;
    }
    const path = join(dir, `seed-${String(files.length).padStart(3, "0")}.sql`);
    writeFileSync(path, `${out.join("\n")}\n`);
    files.push(path);
  };

  for (let i = 0; i < calls; i++) {
    const startMs = end - span + Math.floor(((i + rand()) * span) / calls);
    const started = new Date(startMs).toISOString();
    const id = uuidv7(startMs, rand);
    const roll = rand();
    const status = roll < 0.85 ? "completed" : roll < 0.95 ? "failed" : "rejected";
    const answered = status === "completed";
    const duration = answered ? 5 + Math.floor(rand() * 600) : Math.floor(rand() * 30);
    const billsec = answered ? Math.max(1, duration - 4) : null;
    const ani =
      rand() < 0.5
        ? `+1415555${String(Math.floor(rand() * 10_000)).padStart(4, "0")}`
        : `+1${200 + Math.floor(rand() * 800)}${String(Math.floor(rand() * 1e7)).padStart(7, "0")}`;
    const analysed = answered && rand() < analysedShare;
    const call = {
      id,
      customer_id: customerId,
      sip_call_id: `${id.slice(-12)}-${i}@sbc.bench.test`,
      origin: "sip",
      direction: "inbound",
      status,
      src_ip: "198.51.100.10",
      ani,
      dialed: `1212555${String(Math.floor(rand() * 10_000)).padStart(4, "0")}`,
      dest_country: "US",
      dest_host: status === "rejected" ? "" : "sbc.bench.test",
      dest_port: status === "rejected" ? 0 : 5060,
      codec: answered ? "PCMA" : null,
      hangup_by: status === "rejected" ? null : rand() < 0.5 ? "caller" : "callee",
      sip_code: answered ? 200 : status === "failed" ? 486 : 403,
      end_reason: answered ? "normal_clearing" : status === "failed" ? "busy" : "not_admitted",
      started_at: started,
      answered_at: answered ? new Date(startMs + 3000).toISOString() : null,
      ended_at: status === "rejected" ? null : new Date(startMs + duration * 1000).toISOString(),
      duration_sec: status === "rejected" ? null : duration,
      billsec,
      charged_micros: answered ? Math.ceil(duration / 60) * 10_000 : 0,
      recording_wav_path: answered ? `recordings/${customerId}/${id}.wav` : null,
      recording_available: answered ? 1 : 0,
      transcript_status: analysed ? "done" : answered ? "skipped" : "none",
      analysis_status: analysed ? "done" : answered ? "skipped" : "none",
      transcript_summary: null,
      analysis_id: null,
      probability: null,
      category: null,
      recommendation: null,
      created_at: started,
      updated_at: started,
    };
    if (analysed) {
      const at = new Date(startMs + (duration + 20) * 1000).toISOString();
      const scam = rand() < scamShare ? pick(SCAMS) : null;
      const ordinary = pick(ORDINARY);
      const entity = scam ? pick(scam.entities) : null;
      const probability = scam ? 55 + Math.floor(rand() * 46) : Math.floor(rand() * 30);
      const recommendation = probability >= 70 ? "block" : probability >= 30 ? "review" : "allow";
      const category = scam ? scam.category : "legitimate";
      const keywords = scam ? scam.keywords.filter(() => rand() < 0.6) : [];
      const summary = scam ? scam.summary(entity) : ordinary.summary;
      const analysisId = uuidv7(startMs + (duration + 20) * 1000, rand);
      Object.assign(call, { transcript_summary: summary, analysis_id: analysisId, probability, category, recommendation });
      const analysis = {
        id: analysisId,
        customer_id: customerId,
        call_id: id,
        ai_mode: "power",
        provider: "embedded",
        model: "rules-v1",
        prompt_version: "embedded-2026-11",
        title: scam ? `${category.replace(/_/g, " ")}: ${entity}` : "Ordinary call",
        probability,
        category,
        entity,
        summary,
        recommendation,
        keywords: JSON.stringify(keywords),
        red_flags: JSON.stringify(scam ? [`Claimed to be ${entity}`] : []),
        created_at: at,
      };
      const text = [...(scam ? scam.turns(entity) : []), ...ordinary.turns].join("\n");
      const transcript = {
        id: uuidv7(startMs + (duration + 10) * 1000, rand),
        customer_id: customerId,
        call_id: id,
        provider: "openai-compatible",
        model: "pocketsphinx-en-us",
        language: "en",
        audio_seconds: billsec,
        text,
        created_at: at,
      };
      tables.analyses.push(`(${ANALYSIS_COLUMNS.map((c) => quote(analysis[c])).join(", ")})`);
      tables.transcripts.push(`(${TRANSCRIPT_COLUMNS.map((c) => quote(transcript[c])).join(", ")})`);
      counts.analyses++;
      counts.transcripts++;
      if (entity) {
        tables.call_entities.push(`(${[customerId, id, entity, started].map(quote).join(", ")})`);
        counts.entities++;
      }
      for (const keyword of keywords) tables.call_keywords.push(`(${[customerId, id, keyword, started].map(quote).join(", ")})`);
      counts.keywords += keywords.length;
    }
    tables.calls.push(`(${CALL_COLUMNS.map((c) => quote(call[c])).join(", ")})`);
    counts.calls++;
    if (tables.calls.length >= callsPerFile) flush();
  }
  if (tables.calls.length) flush();
  return { files, counts, from: new Date(end - span).toISOString(), to: new Date(end).toISOString() };
}
