import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from './bridge.js';

export interface Certs {
  dir: string;
  ca: string;
  otherCa: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** The client key encrypted with `clientKeyPassword`. */
  clientKeyEncrypted: string;
  clientKeyPassword: string;
}

const ssl = (args: string[], cwd: string): void => {
  execFileSync('openssl', args, { cwd, stdio: 'ignore' });
};

/** A test CA, a server certificate for localhost/127.0.0.1, a client certificate, and an unrelated CA. */
export function makeCerts(): Certs {
  const dir = tempDir('certs-');
  const sign = (name: string, subject: string, ext: string): void => {
    ssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject], dir);
    writeFileSync(path.join(dir, `${name}.ext`), ext);
    ssl(['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', `${name}.ext`], dir);
  };
  ssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=bridge test CA'], dir);
  ssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'other.key', '-out', 'other.crt', '-days', '2', '-subj', '/CN=some other CA'], dir);
  sign('server', '/CN=localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  sign('client', '/CN=bridge client', 'extendedKeyUsage=clientAuth\n');
  ssl(['pkey', '-in', 'client.key', '-aes256', '-passout', 'pass:KeyPassw0rd', '-out', 'client-enc.key'], dir);
  const p = (f: string): string => path.join(dir, f);
  return {
    dir,
    ca: p('ca.crt'),
    otherCa: p('other.crt'),
    serverCert: p('server.crt'),
    serverKey: p('server.key'),
    clientCert: p('client.crt'),
    clientKey: p('client.key'),
    clientKeyEncrypted: p('client-enc.key'),
    clientKeyPassword: 'KeyPassw0rd',
  };
}
