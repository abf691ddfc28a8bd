// A self-signed certificate for 127.0.0.1, made for one test run with openssl (which
// scripts/ensure-test-tools.sh installs): TLS destinations and the WSS listener use it.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Paths of a new key and certificate (PEM), valid a day, for IP 127.0.0.1. */
export function selfSignedCertificate(label: string): { key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), `${label}-`));
  const [key, cert] = [join(dir, "key.pem"), join(dir, "cert.pem")];
  const subject = ["-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"];
  const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  execFileSync("openssl", ["req", "-x509", ...ecKey, "-keyout", key, "-out", cert, "-days", "1", ...subject], { stdio: "ignore" });
  return { key, cert };
}
