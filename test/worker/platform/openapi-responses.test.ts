// The document must not lie (issue 27, item 5): the test client checks every answer of a
// documented operation against /api/openapi.json (openapi-validator.ts). Here the validator
// itself is shown to catch a wrong schema, an undocumented status and an undocumented media
// type, and the document is held to the shapes that keep it honest.
import { describe, expect, it } from "vitest";
import { expectStatus, OpenApiMismatch, type Reply, request, responseValidator } from "../fixtures/client.ts";
import { createAccount } from "../fixtures/factory.ts";
import { ResponseValidator, type Answer, type OpenApiDocument } from "../fixtures/openapi-validator.ts";

type Json = Record<string, any>;

const served = await request("GET", "/api/openapi.json");
// The document describes every route but its own.
const doc = served.body as OpenApiDocument & Json;

const answerOf = (method: string, path: string, reply: Reply): Answer => ({
  method,
  path,
  status: reply.status,
  contentType: reply.headers.get("content-type") ?? "",
  body: reply.body,
});

/** A copy of the served document with one deliberate lie in it. */
function withLie(lie: (copy: Json) => void): ResponseValidator {
  const copy = structuredClone(doc) as Json;
  lie(copy);
  return new ResponseValidator(copy as OpenApiDocument);
}

/** Every schema object in the document, with where it is. */
function* schemas(node: unknown, at = "#"): Generator<[string, Json]> {
  if (Array.isArray(node)) for (const [i, item] of node.entries()) yield* schemas(item, `${at}/${i}`);
  else if (node && typeof node === "object") {
    yield [at, node as Json];
    for (const [key, value] of Object.entries(node)) yield* schemas(value, `${at}/${key}`);
  }
}

describe("the response validator", () => {
  it("passes a case whose call is null against the served document, and catches the allOf rendering that refused it", async () => {
    const { client } = await createAccount();
    const created = await client.post("/api/cases", { title: "No call yet" });
    expectStatus(created, 201);
    const path = `/api/cases/${created.body.id}` as const;
    const detail = await client.get(path);
    expectStatus(detail, 200);
    expect(detail.body.call).toBeNull();
    const answer = answerOf("GET", path, detail);

    expect((await responseValidator()).check(answer)).toBeUndefined();

    // What CallSchema.nullable() rendered before: allOf [Call, {type: [object, null]}], which no null satisfies.
    const lying = withLie((copy) => {
      const extension = copy.components.schemas.CaseDetail.allOf[1];
      extension.properties.call = { allOf: [{ $ref: "#/components/schemas/Call" }, { type: ["object", "null"] }] };
    });
    const mismatch = lying.check(answer);
    expect(mismatch).toContain("GET /cases/{case_id} answered 200 application/json that does not match its schema");
    expect(mismatch).toMatch(/at #\/call: Instance type "null" is invalid/);
  });

  it("catches a field of the wrong type and a required field the server does not send", async () => {
    const { client } = await createAccount();
    const me = await client.get("/api/auth/me");
    expectStatus(me, 200);
    const answer = answerOf("GET", "/api/auth/me", me);
    expect((await responseValidator()).check(answer)).toBeUndefined();

    const operation = doc.paths["/auth/me"]!.get as Json;
    const schema = operation.responses["200"].content["application/json"].schema as Json;
    const lying = withLie((copy) => {
      copy.paths["/auth/me"].get.responses["200"].content["application/json"].schema = {
        allOf: [schema, { type: "object", properties: { role: { type: "integer" } }, required: ["no_such_field"] }],
      };
    });
    const mismatch = lying.check(answer);
    expect(mismatch).toContain("GET /auth/me answered 200");
    expect(mismatch).toMatch(/at #\/role: Instance type "string" is invalid. Expected "integer"/);
    expect(mismatch).toMatch(/at #: Instance does not have required property "no_such_field"/);
  });

  it("catches a property the server sends and the schema does not declare", async () => {
    const { client } = await createAccount();
    const answer = answerOf("GET", "/api/auth/me", await client.get("/api/auth/me"));
    const lying = withLie((copy) => {
      const account = copy.components.schemas.Account;
      delete account.properties.role;
      account.required = account.required.filter((name: string) => name !== "role");
    });
    expect(lying.check(answer)).toMatch(
      /^GET \/auth\/me answered 200 application\/json with properties its schema does not declare: #\/role\n/,
    );
  });

  it("catches a status the operation does not document: 413 of the body limit, once taken out", async () => {
    const big = await request("POST", "/api/auth/login", { rawBody: JSON.stringify({ email: "a@b.test", password: "x".repeat(70_000) }) });
    expectStatus(big, 413);
    const answer = answerOf("POST", "/api/auth/login", big);
    expect((await responseValidator()).check(answer)).toBeUndefined();

    const lying = withLie((copy) => delete copy.paths["/auth/login"].post.responses["413"]);
    expect(lying.check(answer)).toMatch(/^POST \/auth\/login answered 413, which the document does not list \(documented: .*422/);
  });

  it("catches a media type the status does not document", async () => {
    const lying = withLie((copy) => {
      copy.paths["/auth/me"].get.responses["401"].content = { "text/plain": { schema: { type: "string" } } };
    });
    const answer = answerOf("GET", "/api/auth/me", await request("GET", "/api/auth/me"));
    expect(answer.status).toBe(401);
    expect(lying.check(answer)).toBe("GET /auth/me answered 401 with application/json, but the document lists text/plain for it");
  });

  it("matches a literal path segment before a parameter, and leaves paths outside the document alone", async () => {
    const validator = await responseValidator();
    const notFound = { status: 404, contentType: "application/json", body: { detail: "Not Found" } };
    expect(validator.documents("/api/calls/entities?limit=5")).toBe(true);
    expect(validator.documents("/api/no-such-thing")).toBe(false);
    expect(validator.check({ method: "GET", path: "/api/no-such-thing", ...notFound })).toBeUndefined();
    expect(validator.check({ method: "GET", path: "/internal/calls/report", ...notFound, status: 200 })).toBeUndefined();
    // /calls/entities is its own operation, not /calls/{call_id} with call_id "entities".
    const lying = withLie((copy) => delete copy.paths["/calls/{call_id}"].get.responses["401"]);
    expect(lying.check({ method: "GET", path: "/api/calls/entities", ...notFound, status: 401 })).toBeUndefined();
  });

  it("fails the request in the test client, naming the operation", async () => {
    // The client's own validator, given the lie for this one check.
    const validator = await responseValidator();
    const lying = withLie((copy) => (copy.paths["/auth/me"].get.responses["401"].content["application/json"].schema = { type: "string" }));
    const original = validator.check.bind(validator);
    validator.check = (answer) => lying.check(answer);
    try {
      await expect(request("GET", "/api/auth/me")).rejects.toThrow(OpenApiMismatch);
      await expect(request("GET", "/api/auth/me")).rejects.toThrow(/GET \/auth\/me answered 401 application\/json that does not match/);
    } finally {
      validator.check = original;
    }
    expect((await request("GET", "/api/auth/me")).status).toBe(401);
  });
});

describe("the document", () => {
  it("never renders a nullable reference as allOf with a nullable type (it refuses null)", () => {
    const found = [...schemas(doc)]
      .filter(([, node]) => Array.isArray(node.allOf) && node.allOf.some((part: Json) => [part.type].flat().includes("null")))
      .map(([at]) => at);
    expect(found).toEqual([]);
  });

  it("documents 413 where a body is taken, 422 where input is checked, 401 and 403 where a credential is needed", () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item as Record<string, Json>)) {
        const name = `${method.toUpperCase()} ${path}`;
        const statuses = Object.keys(op.responses ?? {});
        const needs = (status: string) => !statuses.includes(status) && missing.push(`${name}: ${status}`);
        if (op.requestBody) needs("413");
        if (path.startsWith("/mcp") || path.startsWith("/oauth")) continue;
        if (op.requestBody || op.parameters?.length) needs("422");
        const schemes = (op.security ?? []).flatMap((requirement: Json) => Object.keys(requirement));
        if (schemes.includes("BearerAuth") || schemes.includes("ApiKeyAuth")) ["401", "403"].forEach(needs);
      }
    }
    expect(missing).toEqual([]);
  });
});
