// A throwaway certificate authority and server certificate, made with openssl for one test run. Tests pass
// the CA to the code under test through an injected option, never through a global environment variable.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCerts {
  /** PEM of the CA that signed `cert`. */
  ca: string;
  cert: string;
  key: string;
}

function run(args: string[], cwd: string) {
  const p = Bun.spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${p.stderr.toString()}`);
}

/** A CA and a leaf certificate for the given DNS names plus 127.0.0.1 and ::1. */
export function makeCerts(dnsNames: string[]): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), "scv-tls-"));
  try {
    const sans = [...dnsNames.map((n) => `DNS:${n}`), "IP:127.0.0.1", "IP:::1"].join(",");
    writeFileSync(join(dir, "leaf.ext"), `subjectAltName=${sans}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n`);
    run(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=scv test CA"], dir);
    run(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", `/CN=${dnsNames[0] ?? "localhost"}`], dir);
    run(["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "leaf.pem", "-days", "2", "-extfile", "leaf.ext"], dir);
    return {
      ca: readFileSync(join(dir, "ca.pem"), "utf8"),
      cert: readFileSync(join(dir, "leaf.pem"), "utf8"),
      key: readFileSync(join(dir, "leaf.key"), "utf8"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
