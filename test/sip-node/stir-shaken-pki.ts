// STIR/SHAKEN for the tests: a test STI-CA, an intermediate and a service provider's signing
// certificate (EC P-256), made with openssl for one test run as certificates.ts makes its own;
// PASSporTs signed with jose; and a local node:http server serving the x5u's PEM and counting
// the requests it got.
import { execFileSync } from "node:child_process";
import { createPrivateKey, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompactSign } from "jose";

const EC = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
const openssl = (args: string[]) => execFileSync("openssl", args, { stdio: "ignore" });

export type Issued = { cert: string; key: string; keyFile: string; certFile: string };

/** A self-signed CA (an STI-CA, or a stranger's CA for the untrusted case). */
export function makeCa(dir: string, name: string): Issued {
  const [keyFile, certFile] = [join(dir, `${name}.key`), join(dir, `${name}.pem`)];
  openssl([
    "req",
    "-x509",
    ...EC,
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "2",
    "-subj",
    `/CN=${name}`,
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  return { keyFile, certFile, key: readFileSync(keyFile, "utf8"), cert: readFileSync(certFile, "utf8") };
}

/** A certificate `issuer` signs: a CA (an intermediate) or a signer's (CA:FALSE). */
export function issue(dir: string, name: string, issuer: Issued, ca = false): Issued {
  const [keyFile, csr, certFile, ext] = ["key", "csr", "pem", "ext"].map((suffix) => join(dir, `${name}.${suffix}`)) as [
    string,
    string,
    string,
    string,
  ];
  openssl(["req", "-new", ...EC, "-keyout", keyFile, "-out", csr, "-subj", `/CN=${name}`]);
  writeFileSync(
    ext,
    ca
      ? "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"
      : "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n",
  );
  openssl([
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    issuer.certFile,
    "-CAkey",
    issuer.keyFile,
    "-CAcreateserial",
    "-out",
    certFile,
    "-days",
    "1",
    "-extfile",
    ext,
  ]);
  return { keyFile, certFile, key: readFileSync(keyFile, "utf8"), cert: readFileSync(certFile, "utf8") };
}

/** The test PKI: an STI-CA, an intermediate under it, a signer under that; a stranger CA and a signer under it. */
export function makePki() {
  const dir = mkdtempSync(join(tmpdir(), "stir-shaken-"));
  const root = makeCa(dir, "Test STI-CA");
  const intermediate = issue(dir, "Test STI intermediate", root, true);
  const signer = issue(dir, "SHAKEN 1234", intermediate);
  const direct = issue(dir, "SHAKEN 5678", root);
  const stranger = makeCa(dir, "Stranger CA");
  const strangerSigner = issue(dir, "SHAKEN 9999", stranger);
  return { dir, root, intermediate, signer, direct, stranger, strangerSigner };
}

export type PassportClaims = {
  attest?: string;
  orig?: unknown;
  dest?: unknown;
  iat?: number;
  origid?: string;
};

/** A SHAKEN PASSporT signed with `key` (PEM), x5u in its header; the claims default to attestation A from +14155550100. */
export async function passport(
  key: string,
  x5u: string,
  claims: PassportClaims = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const payload = {
    attest: "A",
    dest: { tn: ["14155550123"] },
    iat: Math.floor(Date.now() / 1000),
    orig: { tn: "14155550100" },
    origid: randomUUID(),
    ...claims,
  };
  return new CompactSign(new TextEncoder().encode(JSON.stringify(payload)))
    .setProtectedHeader({ alg: "ES256", ppt: "shaken", typ: "passport", x5u, ...header })
    .sign(createPrivateKey(key));
}

/** The Identity header's value for `token` (RFC 8224). */
export const identityHeader = (token: string, x5u: string, ppt = "shaken") => `${token};info=<${x5u}>;alg=ES256;ppt=${ppt}`;

/** A local x5u server: each path serves the PEM set for it (404 otherwise); `hits` counts every request. */
export async function startX5uServer() {
  const files = new Map<string, { pem: string; headers?: Record<string, string> }>();
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    const file = files.get(req.url ?? "");
    if (!file) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/x-pem-file", ...file.headers });
    res.end(file.pem);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    hits,
    serve(path: string, pem: string, headers?: Record<string, string>) {
      files.set(path, { pem, ...(headers ? { headers } : {}) });
      return `http://127.0.0.1:${port}${path}`;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
