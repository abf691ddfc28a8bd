// A tool's arguments as agents send them (issue 31): strict, so an argument the tool does not take
// is refused naming the ones it does (never dropped, which once sent a test call to the default
// destination), and under the other names the agent plugin's skills use (aliases: `destination`
// for destination_id...). tools/list shows each alias as an optional argument of the same type,
// the argument it stands for optional too (either name carries it), and no other
// (additionalProperties false); the SDK parses the listed schema loose, and resolveArguments
// then refuses the unknown, maps aliases and checks what either name had to carry.
import { z } from "@hono/zod-openapi";
import { InvalidField } from "../services/errors.ts";

type AnyObject = z.ZodObject<z.ZodRawShape>;

/** Another name of an argument: alias -> the argument's own name. */
export type Aliases = Record<string, string>;

export type ArgumentRules = {
  name: string;
  input: AnyObject;
  aliases?: Aliases | undefined;
  /** Taken but not listed: secrets an agent may send anyway, named as ignored by the tool (issue 29). */
  ignored?: readonly string[] | undefined;
};

const isRequired = (field: z.ZodType) => !field.safeParse(undefined).success;

const sentence = (text: string | undefined) => (text ? `${text.replace(/\.?$/, ".")} ` : "");

/** The input schema tools/list shows and the SDK parses with, loose: unknown arguments reach resolveArguments. */
export function listedInput({ input, aliases = {} }: ArgumentRules): AnyObject {
  const shape = { ...input.shape } as Record<string, z.ZodType>;
  for (const [alias, name] of Object.entries(aliases)) {
    const field = input.shape[name] as z.ZodType | undefined;
    if (!field) throw new Error(`alias ${alias} names ${name}, which is not an argument`);
    const need = isRequired(field) ? "Required, as" : "May be given as";
    shape[name] = field.optional().describe(`${sentence(field.description)}${need} ${name} or ${alias} (the same argument).`);
    shape[alias] = field.optional().describe(`The same as ${name} (give one of the two; both must agree).`);
  }
  return z.object(shape).loose().meta({ additionalProperties: false }) as unknown as AnyObject;
}

/** The arguments a tool takes, each with its aliases: what an unknown argument's refusal lists. */
export function acceptedArguments({ input, aliases = {} }: ArgumentRules): string[] {
  return Object.keys(input.shape).map((name) => {
    const others = Object.entries(aliases).filter(([, own]) => own === name);
    return others.length ? `${name} (or ${others.map(([alias]) => alias).join(", ")})` : name;
  });
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The arguments the tool's run() takes, from those the SDK parsed: an unknown one is refused
 * naming the accepted ones (422, nothing done), an alias becomes its argument's own name (both
 * given and differing is refused), and an aliased argument is checked against its own schema
 * (required, default) now that either name may have carried it.
 */
export function resolveArguments(rules: ArgumentRules, parsed: unknown): Record<string, unknown> {
  const { name: tool, input, aliases = {}, ignored = [] } = rules;
  const args = { ...((parsed ?? {}) as Record<string, unknown>) };
  const known = new Set([...Object.keys(input.shape), ...Object.keys(aliases), ...ignored]);
  const unknown = Object.keys(args).filter((key) => !known.has(key));
  if (unknown.length > 0) {
    const accepted = acceptedArguments(rules);
    throw new InvalidField(
      unknown.join(", "),
      `unknown argument${unknown.length > 1 ? "s" : ""}: ${tool} ${accepted.length ? `takes ${accepted.join(", ")}` : "takes no arguments"}`,
      "extra_forbidden",
    );
  }
  for (const [alias, name] of Object.entries(aliases)) {
    if (!(alias in args)) continue;
    const value = args[alias];
    delete args[alias];
    if (value === undefined) continue;
    if (args[name] !== undefined && !same(args[name], value)) {
      throw new InvalidField(alias, `${alias} and ${name} are the same argument and were given different values: give one of them`);
    }
    args[name] = value;
  }
  for (const name of new Set(Object.values(aliases))) {
    const field = input.shape[name] as z.ZodType;
    const checked = field.safeParse(args[name]);
    if (!checked.success) {
      const others = Object.entries(aliases).filter(([, own]) => own === name);
      const detail = checked.error.issues[0]?.message ?? "invalid";
      throw new InvalidField(name, `${detail} (give ${[name, ...others.map(([alias]) => alias)].join(" or ")})`);
    }
    if (checked.data === undefined) delete args[name];
    else args[name] = checked.data;
  }
  return args;
}
