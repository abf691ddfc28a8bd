// A Worker that verifies the bench password n times per request, so the cost of one
// verification inside workerd is the difference between ?n=N and ?n=0, divided by N.
import { hashPassword, verifyPassword } from "../../worker/lib/passwords.ts";

const ITERATIONS = 100_000;
let stored: Promise<string> | undefined;

export default {
  async fetch(request: Request): Promise<Response> {
    stored ??= hashPassword("bench password 123", ITERATIONS);
    const hash = await stored;
    const n = Number(new URL(request.url).searchParams.get("n") ?? "0");
    let ok = true;
    for (let i = 0; i < n; i++) ok &&= await verifyPassword("bench password 123", hash);
    return new Response(ok ? "ok" : "mismatch", { status: ok ? 200 : 500 });
  },
};
