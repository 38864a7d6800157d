import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A CA and one server certificate it signed, as PEM files in a temp dir of their own. */
export interface TestPki {
  dir: string;
  caFile: string;
  certFile: string;
  keyFile: string;
  ca: string;
  cert: string;
  key: string;
}

/**
 * Makes a fresh CA (its own key, so two calls give two CAs that do not trust each other) and a
 * server certificate for `names` (DNS names and IP addresses, as subjectAltName), with openssl.
 */
export function makeTestPki(label: string, names: { dns?: string[]; ip?: string[] }): TestPki {
  const dir = mkdtempSync(join(tmpdir(), `hookgate-pki-${label}-`));
  const file = (n: string) => join(dir, n);
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    `/CN=hookgate test CA ${label}`,
  );
  openssl(
    'req',
    '-new',
    ...ec,
    '-keyout',
    file('server.key'),
    '-out',
    file('server.csr'),
    '-subj',
    `/CN=${label}`,
  );
  const san = [...(names.dns ?? []).map((n) => `DNS:${n}`), ...(names.ip ?? []).map((n) => `IP:${n}`)];
  writeFileSync(file('ext.cnf'), `subjectAltName=${san.join(',')}\nextendedKeyUsage=serverAuth\n`);
  openssl(
    ...['x509', '-req', '-in', file('server.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key')],
    ...['-CAcreateserial', '-out', file('server.pem'), '-days', '2', '-extfile', file('ext.cnf')],
  );
  return {
    dir,
    caFile: file('ca.pem'),
    certFile: file('server.pem'),
    keyFile: file('server.key'),
    ca: readFileSync(file('ca.pem'), 'utf8'),
    cert: readFileSync(file('server.pem'), 'utf8'),
    key: readFileSync(file('server.key'), 'utf8'),
  };
}
