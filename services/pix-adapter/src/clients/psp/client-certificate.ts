import { readFileSync } from 'node:fs';
import { type SecureContextOptions, createSecureContext } from 'node:tls';
import { ConfigError } from '@gateway/config';
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
 * The client certificate read from its files, or none. Each file is checked at start, so a bad one is a configuration
 * error that names the variable, never a PSP outage retried for ever: a PEM file must hold what it is for, the pair
 * must match, and a PKCS#12 file must open with its passphrase. No message carries a file's content or the passphrase.
 */
export function readClientCertificate(files: ClientCertificateFiles): ClientCertificate | undefined {
  const ca = files.ca ? { ca: readPemFile('PSP_MTLS_CA', files.ca, 'certificate') } : {};
  if (files.pfx) {
    const pfx = readVariableFile('PSP_MTLS_PFX', files.pfx);
    const passphrase = files.passphrase === undefined ? {} : { passphrase: files.passphrase };
    checkTlsMaterial(
      ['PSP_MTLS_PFX', 'PSP_MTLS_PASSPHRASE'],
      { pfx, ...passphrase },
      'PSP_MTLS_PFX does not open with PSP_MTLS_PASSPHRASE (a wrong passphrase, or not a PKCS#12 file)',
    );
    return { pfx, ...passphrase, ...ca };
  }
  if (!files.cert || !files.key) return undefined;
  const cert = readPemFile('PSP_MTLS_CERT', files.cert, 'certificate');
  const key = readPemFile('PSP_MTLS_KEY', files.key, 'private key');
  checkTlsMaterial(
    ['PSP_MTLS_CERT', 'PSP_MTLS_KEY'],
    { cert, key },
    'PSP_MTLS_KEY is not the private key of PSP_MTLS_CERT',
  );
  return { cert, key, ...ca };
}

const PEM_BLOCKS = {
  certificate: /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/,
  'private key': /-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----[\s\S]+?-----END (?:[A-Z]+ )?PRIVATE KEY-----/,
};

/** The PEM file a variable names, refused (a ConfigError) when it cannot be read or holds no block of `what`. */
export function readPemFile(variable: string, path: string, what: keyof typeof PEM_BLOCKS): string {
  const text = readVariableFile(variable, path).toString('utf8');
  if (!PEM_BLOCKS[what].test(text)) throw new ConfigError([variable], `${variable} holds no PEM ${what}`);
  return text;
}

/** Whether TLS takes this material (a matching pair, a PKCS#12 file and its passphrase); a ConfigError otherwise. */
export function checkTlsMaterial(variables: string[], material: SecureContextOptions, problem: string): void {
  try {
    createSecureContext(material);
  } catch {
    // TLS's own message is left out: it says nothing the variables do not, and nothing secret may slip through.
    throw new ConfigError(variables, problem);
  }
}

function readVariableFile(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch {
    throw new ConfigError([variable], `${variable} names a file that cannot be read`);
  }
}
