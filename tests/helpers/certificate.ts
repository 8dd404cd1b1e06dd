import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

/** Whether the machine has the openssl command that `selfSignedCertificate` needs. */
export const hasOpenssl = await promisify(execFile)('openssl', ['version']).then(
  () => true,
  () => false,
);

/**
 * A self-signed certificate for 127.0.0.1, made with openssl in `dir`, good for a day: the key and
 * certificate a TLS endpoint of the test's own serves, and the certificate's file, which a process
 * started with NODE_EXTRA_CA_CERTS=<file> trusts.
 */
export async function selfSignedCertificate(dir: string) {
  const key = path.join(dir, 'key.pem');
  const file = path.join(dir, 'certificate.pem');
  await promisify(execFile)('openssl', [
    ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
    ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', key, '-out', file],
  ]);
  return { key: await readFile(key, 'utf8'), cert: await readFile(file, 'utf8'), file };
}
