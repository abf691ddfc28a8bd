// Text as the decoder's dictionary spells it: lower-case words of cmudict-en-us.dict, numbers spelled
// as words ("$250" -> "two hundred fifty dollars", "1-800-555-0199" -> digit by digit), a few
// abbreviations read out ("Dr." -> "doctor"), split into sentences. Used to build the language model
// from the call corpora and to compare references with what the decoder says.

const ONES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
const TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"];
const TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"];
const ORDINAL: Record<string, string> = {
  one: "first",
  two: "second",
  three: "third",
  five: "fifth",
  eight: "eighth",
  nine: "ninth",
  twelve: "twelfth",
};

/** A whole number under a trillion as words: 1205 -> "one thousand two hundred five". */
export function numberWords(n: number): string[] {
  if (n < 10) return [ONES[n]!];
  if (n < 20) return [TEENS[n - 10]!];
  if (n < 100) return n % 10 ? [TENS[Math.floor(n / 10)]!, ONES[n % 10]!] : [TENS[n / 10]!];
  if (n < 1000) return [ONES[Math.floor(n / 100)]!, "hundred", ...(n % 100 ? numberWords(n % 100) : [])];
  for (const [size, name] of [
    [1e9, "billion"],
    [1e6, "million"],
    [1e3, "thousand"],
  ] as const) {
    if (n >= size) return [...numberWords(Math.floor(n / size)), name, ...(n % size ? numberWords(n % size) : [])];
  }
  return [];
}

/** "twenty one" -> "twenty first". */
function ordinalWords(n: number): string[] {
  const words = numberWords(n);
  const last = words.pop()!;
  const ordinal = ORDINAL[last] ?? (last.endsWith("y") ? `${last.slice(0, -1)}ieth` : `${last}th`);
  return [...words, ordinal];
}

/** Digits one by one: "0199" -> "zero one nine nine". */
const digitWords = (digits: string): string[] => [...digits].map((d) => ONES[Number(d)]!);

/** How a run of digits is read: long runs (account, phone numbers) digit by digit, others as a number. */
function readNumber(digits: string): string[] {
  if (digits.length > 4 || (digits.length > 1 && digits.startsWith("0"))) return digitWords(digits);
  const n = Number(digits);
  // Years are read in pairs: 1990 -> nineteen ninety, 2024 -> twenty twenty four.
  if (digits.length === 4 && n >= 1100 && n < 2100 && n % 1000 >= 10 && Math.floor(n / 100) % 10 !== 0) {
    return [...numberWords(Math.floor(n / 100)), ...(n % 100 < 10 ? ["oh", ONES[n % 10]!] : numberWords(n % 100))];
  }
  return numberWords(n);
}

const ABBREVIATIONS: [RegExp, string][] = [
  [/\bdr\.?(?=\s+[a-z])/g, "doctor"],
  [/\bmr\.(?=\s)/g, "mister"],
  [/\bmrs\.(?=\s)/g, "missus"],
  [/\bms\.(?=\s)/g, "miss"],
  [/\bst\.(?=\s+[a-z])/g, "saint"],
  [/\be\.g\./g, "for example"],
  [/\bi\.e\./g, "that is"],
  [/\bu\.s\.a?\./g, " u s "],
  [/\ba\.m\./g, " a m "],
  [/\bp\.m\./g, " p m "],
  [/\betc\./g, "etcetera"],
  [/\bvs\.?(?=\s)/g, "versus"],
  [/&/g, " and "],
  [/@/g, " at "],
  [/\+/g, " plus "],
];

/** Numbers, money, times and percentages of lower-cased text as words. */
function spellNumbers(text: string): string {
  const say = (words: string[]) => ` ${words.join(" ")} `;
  return (
    text
      // Phone and card numbers with separators: 1-800-555-0199, (555) 123-4567, 4111 1111 1111 1111.
      .replace(/\(?\d{3}\)?[-. ]\d{3}[-. ]\d{4}\b|\b\d(?:[- ]\d{3}){2}[- ]\d{4}\b|\b\d{4}(?: \d{4}){2,3}\b/g, (m) =>
        say(digitWords(m.replace(/\D/g, ""))),
      )
      // Money: $1,250.50 -> one thousand two hundred fifty dollars and fifty cents.
      .replace(/\$\s?(\d[\d,]*)(?:\.(\d\d))?(?:\s?(k|million|billion|thousand|hundred)\b)?/g, (_, whole: string, cents, scale) => {
        const n = Number(whole.replace(/,/g, ""));
        const big = scale === "k" ? ["thousand"] : scale ? [scale] : [];
        const unit = big.length || n !== 1 ? "dollars" : "dollar";
        const centWords = cents && Number(cents) ? ["and", ...numberWords(Number(cents)), "cents"] : [];
        return say([...(n > 999_999_999_999 ? digitWords(String(n)) : numberWords(n)), ...big, unit, ...centWords]);
      })
      // Times: 2:30 -> two thirty, 10:05 -> ten oh five, 3:00 -> three.
      .replace(/\b(\d{1,2}):(\d\d)\b/g, (_, h: string, m: string) =>
        say([...numberWords(Number(h)), ...(m === "00" ? [] : Number(m) < 10 ? ["oh", ONES[Number(m)]!] : numberWords(Number(m)))]),
      )
      .replace(/\b(\d+)(st|nd|rd|th)\b/g, (_, n: string) => say(ordinalWords(Number(n))))
      .replace(/\b(\d[\d,]*)\.(\d+)\b/g, (_, whole: string, frac: string) =>
        say([...readNumber(whole.replace(/,/g, "")), "point", ...digitWords(frac)]),
      )
      .replace(/\b\d{1,3}(?:,\d{3})+\b/g, (m) => say(numberWords(Number(m.replace(/,/g, "")))))
      .replace(/%/g, " percent ")
      .replace(/\d+/g, (m) => say(readNumber(m)))
  );
}

/** Capitals the dictionary lacks as a word are read letter by letter: "SSA" -> "s s a". */
function spellAcronyms(text: string, dictionary: ReadonlySet<string>): string {
  return text.replace(/\b[A-Z]{2,5}\b/g, (m) => (dictionary.has(m.toLowerCase()) ? m : m.split("").join(" ")));
}

/**
 * The sentences of a text as dictionary words; a word the dictionary lacks is null (it breaks the
 * n-gram context). Sentences end at . ! ? and at line breaks.
 */
export function spokenSentences(text: string, dictionary: ReadonlySet<string>): (string | null)[][] {
  let t = spellAcronyms(text, dictionary)
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc`]/g, "'");
  for (const [pattern, replacement] of ABBREVIATIONS) t = t.replace(pattern, replacement);
  t = spellNumbers(t);
  const sentences: (string | null)[][] = [];
  for (const sentence of t.split(/[.!?;]+(?=\s|$)|\n+/)) {
    const words: (string | null)[] = [];
    for (const raw of sentence.split(/[^a-z0-9'.-]+/)) {
      const token = raw.replace(/^['.-]+|['.-]+$/g, "");
      if (!token) continue;
      if (dictionary.has(token)) {
        words.push(token);
        continue;
      }
      // Hyphenated and dotted compounds the dictionary lacks are read as their parts.
      const parts = token.split(/[-.]+/).filter(Boolean);
      if (parts.length > 1) for (const part of parts) words.push(dictionary.has(part) ? part : null);
      else words.push(null);
    }
    if (words.some((w) => w !== null)) sentences.push(words);
  }
  return sentences;
}

/** The words of a text, dictionary or not, numbers spelled out: for comparing a reference with the decoder's words. */
export function spokenWords(text: string, dictionary?: ReadonlySet<string>): string[] {
  let t = (dictionary ? spellAcronyms(text, dictionary) : text).toLowerCase().replace(/[\u2018\u2019\u02bc`]/g, "'");
  for (const [pattern, replacement] of ABBREVIATIONS) t = t.replace(pattern, replacement);
  return spellNumbers(t)
    .replace(/[^a-z0-9' ]+/g, " ")
    .replace(/(^|\s)'+|'+(?=\s|$)/g, " ")
    .split(/\s+/)
    .filter(Boolean);
}

/** The words of a cmudict-format dictionary (alternative pronunciations "word(2)" fold into "word"). */
export function dictionaryWords(dict: string): Set<string> {
  const words = new Set<string>();
  for (const line of dict.split("\n")) {
    const word = line.slice(0, line.indexOf(" ")).replace(/\(\d+\)$/, "");
    if (word) words.add(word);
  }
  return words;
}
