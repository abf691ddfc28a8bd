// curl as the e2e tests run it, the way a client of the exchange would.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

export type Reply = { status: number; body: any; headers: string };

/** Runs curl; the reply's status, JSON body (or text) and the response headers of every leg, kept in `dir`. */
export function curl(dir: string, args: string[]): Promise<Reply> {
  const headersFile = join(dir, `headers-${randomBytes(4).toString("hex")}`);
  return new Promise((resolve, reject) => {
    execFile("curl", ["-sS", "-D", headersFile, "-w", "\n%{http_code}", ...args], { encoding: "utf8" }, (err, stdout, stderr) => {
      if (err) return reject(new Error(`curl failed: ${stderr || err.message}`));
      const cut = stdout.lastIndexOf("\n");
      const text = stdout.slice(0, cut);
      const headers = readFileSync(headersFile, "utf8");
      rmSync(headersFile, { force: true });
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      resolve({ status: Number(stdout.slice(cut + 1)), body, headers });
    });
  });
}
