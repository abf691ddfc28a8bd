// Builds the three JSONL files in this folder from the hand-written sources in src/.
// Deterministic: no randomness; the same sources always give the same lines and ids.
//
// Source format (src/<file>-<part>.txt, parts read in name order):
//   @topic            sets the topic for the blocks that follow
//   blank line        ends a block
//   "> text"          a turn by the caller (the side that placed the call)
//   "< text"          a turn by the callee
//   other lines       one-sided or unmarked text; the lines of a block are joined with a space
//   "~" first line    the block's turns are flattened into an unmarked machine-style transcript
//   "# ..."           a comment
// benign-tasks: every third two-sided block is also flattened (a third of the lines are
// transcripts without speaker marks, as a speech recogniser would give them).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const FILES = {
  'benign-tasks': { label: 'benign', flattenEvery: 3, topics: ['banking', 'payments', 'restaurant', 'travel', 'rideshare', 'tickets', 'shopping', 'food_order', 'appointment', 'insurance', 'utility', 'telecom_support', 'assistant'] },
  'benign-calls': { label: 'benign', flattenEvery: 0, topics: ['appointment', 'pharmacy', 'delivery', 'bank_alert', 'school', 'family', 'wrong_number', 'contractor', 'insurance', 'recall', 'utility_notice', 'airline', 'survey'] },
  'robocalls': { label: 'scam', flattenEvery: 0, topics: ['government', 'tax', 'police', 'retail', 'tech_support', 'bank', 'card_services', 'loan', 'warranty', 'medicare', 'insurance', 'energy', 'utility', 'telecom', 'delivery', 'prize', 'investment', 'family', 'charity', 'job', 'fine', 'travel'] },
};

// Numbers as a recogniser often writes them: amounts, times and counts in words, long
// digit strings (phone, account, confirmation numbers) read out one digit at a time.
const ONES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const TENS = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
function words(n) {
  if (n < 20) return ONES[n];
  if (n < 100) return TENS[Math.floor(n / 10)] + (n % 10 ? ' ' + ONES[n % 10] : '');
  if (n < 1000) return ONES[Math.floor(n / 100)] + ' hundred' + (n % 100 ? ' ' + words(n % 100) : '');
  if (n < 1000000) return words(Math.floor(n / 1000)) + ' thousand' + (n % 1000 ? ' ' + words(n % 1000) : '');
  return words(Math.floor(n / 1000000)) + ' million' + (n % 1000000 ? ' ' + words(n % 1000000) : '');
}
const ORD = { one: 'first', two: 'second', three: 'third', five: 'fifth', eight: 'eighth', nine: 'ninth', twelve: 'twelfth' };
function ordinal(n) {
  const w = words(n).split(' ');
  const last = w.pop();
  return [...w, ORD[last] ?? (last.endsWith('y') ? last.slice(0, -1) + 'ieth' : last + 'th')].join(' ');
}
function spellNumbers(s) {
  const digits = (m) => m.replace(/\D/g, '').split('').map((d) => ONES[+d]).join(' ');
  return s
    .replace(/\b1[ -]\d{3}[ -]\d{3}[ -]\d{4}\b|\b\d{3}[ -]\d{3}[ -]\d{4}\b|\b\d{3}[ -]\d{4}\b/g, digits)
    .replace(/\$([\d,]+)\.(\d\d)\b/g, (_, d, c) => `${words(+d.replace(/,/g, ''))} dollars${+c ? ' and ' + words(+c) + ' cents' : ''}`)
    .replace(/\$([\d,]+)/g, (_, d) => `${words(+d.replace(/,/g, ''))} dollars`)
    .replace(/\b(\d{1,2}):(\d\d)\b/g, (_, h, m) => words(+h) + (+m === 0 ? " o'clock" : +m < 10 ? ' oh ' + words(+m) : ' ' + words(+m)))
    .replace(/\b(\d{1,2})(st|nd|rd|th)\b/g, (_, d) => ordinal(+d))
    .replace(/\b\d{1,3}(,\d{3})+\b/g, (m) => words(+m.replace(/,/g, '')))
    .replace(/\b\d+\b/g, (m) => (m.length <= 4 && m[0] !== '0' ? words(+m) : m.split('').map((d) => ONES[+d]).join(' ')));
}

function flatten(turns, spell) {
  let text = turns.map((t) => t.text).join(' ');
  if (spell) text = spellNumbers(text);
  return text
    .toLowerCase()
    .replace(/[—–]/g, ' ')
    .replace(/(?<!\d)[.,]|[.,](?!\d)/g, '') // keep the point and comma inside numbers ($86.12, 1,283)
    .replace(/[!?;:"()]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

function parse(name, text, spec) {
  const out = [];
  let topic = null;
  let block = [];
  const flush = (lineNo) => {
    if (block.length === 0) return;
    let lines = block;
    block = [];
    let forceFlat = false;
    if (lines[0] === '~') { forceFlat = true; lines = lines.slice(1); }
    const turnLines = lines.filter((l) => /^[<>] /.test(l));
    if (turnLines.length > 0 && turnLines.length !== lines.length) throw new Error(`${name}:${lineNo}: block mixes turns and text`);
    if (!topic) throw new Error(`${name}:${lineNo}: no @topic`);
    if (!spec.topics.includes(topic)) throw new Error(`${name}:${lineNo}: topic ${topic} not allowed`);
    if (turnLines.length > 0) {
      const turns = lines.map((l) => ({ speaker: l[0] === '>' ? 'caller' : 'callee', text: l.slice(2).trim() }));
      out.push({ topic, turns, forceFlat });
    } else {
      out.push({ topic, text: lines.join(' ').replace(/\s+/g, ' ').trim() });
    }
  };
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (line.startsWith('#')) return;
    if (line.startsWith('@')) { flush(i); topic = line.slice(1).trim(); return; }
    if (line === '') { flush(i); return; }
    block.push(line);
  });
  flush(-1);
  return out;
}

const srcDir = join(here, 'src');
const srcFiles = readdirSync(srcDir).sort();
for (const [file, spec] of Object.entries(FILES)) {
  const items = [];
  for (const f of srcFiles.filter((s) => s.startsWith(file + '-') && s.endsWith('.txt'))) {
    items.push(...parse(f, readFileSync(join(srcDir, f), 'utf8'), spec));
  }
  let twoSided = 0;
  let flattened = 0;
  let lowerText = 0;
  const seen = new Set();
  const lines = items.map((it, i) => {
    const rec = { id: `extra:${file}:${i + 1}`, label: spec.label, topic: it.topic };
    if (it.turns) {
      twoSided += 1;
      const flat = it.forceFlat || (spec.flattenEvery && twoSided % spec.flattenEvery === 0);
      if (flat) {
        flattened += 1;
        rec.text = flatten(it.turns, flattened % 2 === 0); // half of the transcripts spell numbers out
      } else rec.turns = it.turns;
    } else {
      rec.text = it.text;
      // one-sided benign transcripts written in recogniser style (lower case): every other one spells numbers out
      if (spec.label === 'benign' && /^[a-z]/.test(it.text) && (++lowerText) % 2 === 0) rec.text = spellNumbers(rec.text);
    }
    const key = rec.text ?? JSON.stringify(rec.turns);
    if (seen.has(key)) throw new Error(`${file}: duplicate content at ${rec.id}`);
    seen.add(key);
    return JSON.stringify(rec);
  });
  writeFileSync(join(here, `${file}.jsonl`), lines.join('\n') + '\n');
  const counts = {};
  for (const l of lines) { const r = JSON.parse(l); counts[r.topic] = (counts[r.topic] || 0) + 1; }
  const flat = lines.filter((l) => JSON.parse(l).text).length;
  console.log(file, lines.length, `text=${flat}`, JSON.stringify(counts));
}
