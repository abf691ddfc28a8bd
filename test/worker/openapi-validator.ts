// Responses checked against the OpenAPI document (issue 27, item 5): the test client hands every
// answer of a documented /api operation to one ResponseValidator, built once per test file from
// the document the Worker serves, so a schema, status or media type that disagrees with what the
// server sends fails the test that received it, and so does a field the document does not name.
// Schemas are JSON Schema 2020-12 (OpenAPI 3.1), checked by @cfworker/json-schema with
// "#/components/..." references resolved in the document.
import { dereference, validate, type OutputUnit, type Schema } from "@cfworker/json-schema";

type MediaType = { schema?: Schema };
type ResponseObject = { $ref?: string; content?: Record<string, MediaType> };
type Operation = { responses?: Record<string, ResponseObject> };
export type OpenApiDocument = {
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
};

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

type Route = { template: string; pattern: RegExp; params: number; methods: Map<string, Operation> };

/** What the validator is asked to judge: one answer to one request. */
export type Answer = { method: string; path: string; status: number; contentType: string; body: unknown };

export class ResponseValidator {
  private readonly doc: OpenApiDocument;
  private readonly base: string;
  private readonly routes: Route[];
  private readonly lookup: Record<string, Schema | boolean>;
  /** The route each concrete path resolved to, so the templates are matched once per path. */
  private readonly resolved = new Map<string, Route | null>();

  constructor(document: OpenApiDocument) {
    // Our own copy: dereference() marks the schemas it indexes.
    this.doc = structuredClone(document);
    this.base = (this.doc.servers?.[0]?.url ?? "").replace(/\/$/, "");
    this.lookup = dereference(this.doc as unknown as Schema);
    this.routes = Object.entries(this.doc.paths)
      .map(([template, item]) => {
        const segments = template.split("/").map((part) => (/^\{[^}]+\}$/.test(part) ? "[^/]+" : escapeRegExp(part)));
        const methods = new Map(
          Object.entries(item)
            .filter(([method]) => METHODS.has(method))
            .map(([method, op]) => [method.toUpperCase(), op as Operation]),
        );
        return { template, pattern: new RegExp(`^${segments.join("/")}$`), params: (template.match(/\{/g) ?? []).length, methods };
      })
      // A literal segment wins over a parameter (/calls/export before /calls/{call_id}), as the router has it.
      .sort((a, b) => a.params - b.params);
  }

  /** The operation documented for a request path under the server URL (query string ignored), if any. */
  private route(path: string): Route | null {
    const bare = path.split("?")[0]!.split("#")[0]!;
    let route = this.resolved.get(bare);
    if (route === undefined) {
      const under = bare.startsWith(`${this.base}/`) ? bare.slice(this.base.length) : null;
      route = under === null ? null : (this.routes.find((r) => r.pattern.test(under)) ?? null);
      this.resolved.set(bare, route);
    }
    return route;
  }

  /** Whether the document describes this path at all (undocumented paths are not judged). */
  documents(path: string): boolean {
    return this.route(path) !== null;
  }

  /**
   * The disagreement between an answer and the document, in words, or undefined when they agree
   * (or the path is not in the document). The status must be documented for the operation; a
   * body must be of a media type documented for that status, and a JSON body must match its schema
   * and carry no property the schema leaves out.
   */
  check(answer: Answer): string | undefined {
    const route = this.route(answer.path);
    if (!route) return undefined;
    const method = answer.method.toUpperCase();
    const name = `${method} ${route.template}`;
    const op = route.methods.get(method);
    if (!op) {
      // The router's own 404 for a method the path does not serve is not the operation's answer.
      if (answer.status === 404 || answer.status === 405) return undefined;
      return `${name} answered ${answer.status}, but the document has no ${method} operation on ${route.template}`;
    }
    const responses = op.responses ?? {};
    const key = [String(answer.status), `${String(answer.status)[0]}XX`, "default"].find((k) => k in responses);
    if (key === undefined) {
      return `${name} answered ${answer.status}, which the document does not list (documented: ${Object.keys(responses).join(", ")})`;
    }
    const response = this.response(responses[key]!);
    if (answer.body === "" || answer.body === undefined) return undefined;
    const mediaType = answer.contentType.split(";")[0]!.trim().toLowerCase();
    const content = response.content ?? {};
    const documented = Object.keys(content);
    const match = documented.find((type) => mediaTypeMatches(type, mediaType));
    if (match === undefined) {
      return `${name} answered ${answer.status} with ${mediaType || "no content type"}, but the document lists ${documented.length ? documented.join(", ") : "no body"} for it`;
    }
    const schema = content[match]!.schema;
    if (!schema || !isJson(mediaType)) return undefined;
    // Short-circuit first (fast), then every error of a failing body for the message.
    if (!validate(answer.body, schema, "2020-12", this.lookup, true).valid) {
      const { errors } = validate(answer.body, schema, "2020-12", this.lookup, false);
      return `${name} answered ${answer.status} ${match} that does not match its schema:\n${describe(errors)}\nbody: ${preview(answer.body)}`;
    }
    // A field the schema does not name is undocumented, though JSON Schema would let it pass.
    const undeclared: string[] = [];
    this.walk(answer.body, [schema], "#", undeclared);
    if (undeclared.length) {
      return `${name} answered ${answer.status} ${match} with properties its schema does not declare: ${undeclared.slice(0, 10).join(", ")}\nbody: ${preview(answer.body)}`;
    }
    return undefined;
  }

  private resolve(schema: Schema): Schema {
    let resolved = schema;
    for (let hops = 0; resolved.$ref && hops < 20; hops++) resolved = this.lookup[resolved.__absolute_ref__ ?? resolved.$ref] as Schema;
    return resolved;
  }

  /** The schemas that apply to an instance: the schema, its $ref, allOf, and the anyOf/oneOf branches it matches. */
  private applicable(instance: unknown, schema: Schema, out: Schema[] = []): Schema[] {
    const resolved = this.resolve(schema);
    if (typeof resolved !== "object") return out;
    out.push(resolved);
    for (const part of resolved.allOf ?? []) this.applicable(instance, part, out);
    for (const part of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? [])]) {
      if (validate(instance, part, "2020-12", this.lookup, true).valid) this.applicable(instance, part, out);
    }
    return out;
  }

  /**
   * Collects the properties of an instance that none of the schemas applying to it declares. An
   * object whose schemas declare no properties at all ({type: object}) or allow additional ones
   * (a record) is free-form and not judged.
   */
  private walk(instance: unknown, given: Schema[], at: string, found: string[]): void {
    if (typeof instance !== "object" || instance === null) return;
    const schemas = given.flatMap((schema) => this.applicable(instance, schema));
    if (Array.isArray(instance)) {
      const items = schemas.map((s) => s.items).filter((s): s is Schema => typeof s === "object" && !Array.isArray(s));
      instance.forEach((item, i) => this.walk(item, items, `${at}/${i}`, found));
      return;
    }
    if (schemas.some((s) => s.additionalProperties !== undefined && s.additionalProperties !== false)) return;
    for (const [name, value] of Object.entries(instance)) {
      const declared = schemas.map((s) => s.properties?.[name]).filter((s): s is Schema => s !== undefined && typeof s === "object");
      if (declared.length === 0 && schemas.some((s) => s.properties)) found.push(`${at}/${name}`);
      this.walk(value, declared, `${at}/${name}`, found);
    }
  }

  private response(response: ResponseObject): ResponseObject {
    let resolved = response;
    for (let hops = 0; resolved.$ref && hops < 10; hops++) resolved = pointer(this.doc, resolved.$ref) as ResponseObject;
    return resolved;
  }
}

const isJson = (mediaType: string) => mediaType === "application/json" || mediaType.endsWith("+json");

function mediaTypeMatches(documented: string, actual: string): boolean {
  const [type, subtype] = documented.toLowerCase().split("/");
  const [actualType, actualSubtype] = actual.split("/");
  return (type === "*" || type === actualType) && (subtype === "*" || subtype === actualSubtype);
}

function pointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`Only local references are resolved, not ${ref}`);
  return ref
    .slice(2)
    .split("/")
    .map((part) => decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], doc);
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

const CHAIN_KEYWORDS = new Set([
  "$ref",
  "allOf",
  "anyOf",
  "oneOf",
  "properties",
  "items",
  "prefixItems",
  "additionalProperties",
  "unevaluatedProperties",
]);

/** The errors that say what is wrong (not the "a subschema had errors" chain above them), first few. */
function describe(errors: OutputUnit[]): string {
  const leaves = errors.filter((e) => !CHAIN_KEYWORDS.has(e.keyword));
  const shown = (leaves.length ? leaves : errors).slice(0, 6);
  return shown.map((e) => `  at ${e.instanceLocation}: ${e.error} (${e.keywordLocation.replace(/^#/, "schema")})`).join("\n");
}

function preview(body: unknown): string {
  const text = JSON.stringify(body);
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}
