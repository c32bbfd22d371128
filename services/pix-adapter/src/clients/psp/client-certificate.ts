import { readFileSync } from 'node:fs';
import type { ClientCertificate } from './api-pix-client';

/** Where the client certificate for the PSP lies: a PEM pair, or one PKCS#12 file (.p12/.pfx) and its passphrase. */
export interface ClientCertificateFiles {
  cert?: string;
  key?: string;
  ca?: string;
  pfx?: string;
  passphrase?: string;
}

/**
 * The client certificate read from its files, or none. A PKCS#12 file is handed to TLS as it is (`pfx` and
 * `passphrase`): a wrong passphrase fails the first connection, whose error names no secret.
 */
export function readClientCertificate(files: ClientCertificateFiles): ClientCertificate | undefined {
  const ca = files.ca ? { ca: readFileSync(files.ca, 'utf8') } : {};
  if (files.pfx)
    return {
      pfx: readFileSync(files.pfx),
      ...(files.passphrase === undefined ? {} : { passphrase: files.passphrase }),
      ...ca,
    };
  if (!files.cert || !files.key) return undefined;
  return { cert: readFileSync(files.cert, 'utf8'), key: readFileSync(files.key, 'utf8'), ...ca };
}
