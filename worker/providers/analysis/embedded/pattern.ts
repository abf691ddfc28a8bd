// Long patterns written across lines: re`…` drops each line break and the indentation after it.
// Raw text, so "\b" is a word boundary, as in a regex literal. Break lines only where no space is
// meant: after "|", or between groups.
export function re(strings: TemplateStringsArray, ...values: string[]): RegExp {
  const raw = strings.raw.map((part) => part.replace(/\n\s*/g, ""));
  return new RegExp(String.raw({ raw }, ...values));
}
