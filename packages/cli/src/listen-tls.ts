import { execFileSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync, randomBytes, X509Certificate } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { isIP } from 'node:net';
import { basename, join } from 'node:path';

export interface ListenTls {
  /** `<dir>/ca.pem`, the local CA's certificate: the stack's processes trust it through NODE_EXTRA_CA_CERTS. */
  caPath: string;
  key: string;
  cert: string;
  /** There was no CA: this call made the first one. A stack started before it does not trust it. */
  created: boolean;
  /** A CA in use was replaced by a new one: a stack started with the previous one must be restarted to trust it. */
  renewed: boolean;
}

/** What the receiver is always certified for: this machine's own names. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '::1'];
/** Short-lived on purpose (the CA is trusted by every process of the stack); renewed automatically. */
export const VALID_DAYS = 30;
/** Renewed this long before it expires, so a listener never starts with a certificate about to lapse. */
const RENEW_BEFORE_MS = 2 * 24 * 3600 * 1000;
/** A generation directory not in use and older than this was left by a run that died: removed. */
const ABANDONED_AFTER_MS = 10 * 60 * 1000;
/** The symlink to the generation in use; `ca.pem` points through it, so its path never changes. */
const CURRENT = 'current';
const CA_FILE = 'ca.pem';
const GENERATION_PREFIX = 'gen-';
/** The files of the first layout (a CA key kept forever beside the certificates): removed on sight. */
const LEGACY_FILES = ['ca-key.pem', 'ca.srl', 'server-key.pem', 'server.pem', 'server.csr', 'server.ext'];
const HOSTNAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

interface Identity {
  generation: string;
  ca: string;
  key: string;
  cert: string;
}

export interface Leaf {
  /** Written as `<name>.pem` and `<name>-key.pem`. */
  name: string;
  hosts: readonly string[];
}

/** A DNS name or an IP address a certificate can be issued for (no wildcards, no trailing dot). */
export function isCertifiableHost(host: string): boolean {
  return isIP(host) !== 0 || HOSTNAME.test(host.toLowerCase());
}

/**
 * The HTTPS identity of `listen`'s receiver, kept in `dir`: a certificate for localhost, 127.0.0.1, ::1 and
 * `extraHosts`, signed by a CA made for it alone.
 *
 * The stack trusts that CA (NODE_EXTRA_CA_CERTS), so it is held to what it is for: its name constraints (critical)
 * permit only the certified hosts, so a certificate it signed for any other name fails verification; it lives
 * VALID_DAYS; and its private key never outlives the run that made it: written encrypted under a random passphrase
 * kept in memory, and deleted as soon as the receiver's certificate is signed. Renewing (expired, near expiry, or a
 * host not covered) makes a new CA and certificate together.
 *
 * Each CA and certificate are made in a fresh `gen-*` directory, then put in use by one atomic operation on the
 * `current` symlink (`ca.pem` points through it): creating it where there is none, so of two first runs at once one
 * wins and the other takes the winner's; replacing it by a rename when renewing. `dir` is made 0700 and the key 0600
 * on every run.
 */
export function ensureListenTls(
  dir: string,
  extraHosts: readonly string[] = [],
  hooks: { beforeInstall?: () => void } = {},
): ListenTls {
  const hosts = certifiedHosts(extraHosts);
  prepareDirectory(dir);
  const linked = exists(join(dir, CURRENT));
  // A CA a stack may have been started with (`ca.pem`, in this layout or the first one).
  const hadCa = exists(join(dir, CA_FILE));
  let identity = readCurrent(dir);
  let made = false;
  if (identity === undefined || !usable(identity, hosts)) {
    const previous = identity?.generation;
    const generation = createGeneration(dir, hosts);
    hooks.beforeInstall?.();
    install(dir, generation, linked ? previous : null, hosts);
    identity = readCurrent(dir);
    if (identity === undefined || !usable(identity, hosts))
      throw new Error(`could not set up the local CA of listen in ${dir}`);
    // Another run may have put its own in use at the same moment: what matters is the one in use now.
    for (const unused of [generation, previous])
      if (unused !== undefined && unused !== identity.generation) removeEntry(dir, unused);
    made = true;
  }
  linkCaPath(dir);
  protect(dir, identity.generation);
  removeLeftovers(dir, identity.generation);
  return {
    caPath: join(dir, CA_FILE),
    key: identity.key,
    cert: identity.cert,
    created: made && !hadCa,
    renewed: made && hadCa,
  };
}

/**
 * Makes a CA whose name constraints permit exactly `hosts`, signs each leaf with it, and deletes the CA's key. The
 * leaves' names must be within `hosts` to verify; the tests sign one outside them to see it refused, and make
 * short-lived ones (`days`) to see them renewed.
 */
export function issueCertificates(
  workDir: string,
  hosts: readonly string[],
  leaves: readonly Leaf[],
  days = VALID_DAYS,
): void {
  const passphrase = randomBytes(32).toString('base64url');
  const caKey = join(workDir, 'ca-key.pem');
  writeFileSync(caKey, ecKey(passphrase), { mode: 0o600 });
  try {
    openssl(
      workDir,
      [
        'req',
        '-x509',
        '-new',
        '-key',
        'ca-key.pem',
        '-passin',
        'stdin',
        '-days',
        String(days),
        '-out',
        CA_FILE,
        '-subj',
        '/CN=gateway CLI listen (local CA)',
        '-addext',
        'basicConstraints=critical,CA:TRUE,pathlen:0',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
        '-addext',
        `nameConstraints=critical,${hosts.map((host) => `permitted;${constraint(host)}`).join(',')}`,
      ],
      passphrase,
    );
    for (const leaf of leaves) {
      const file = (suffix: string) => `${leaf.name}${suffix}`;
      writeFileSync(join(workDir, file('-key.pem')), ecKey(), { mode: 0o600 });
      openssl(workDir, [
        'req',
        '-new',
        '-key',
        file('-key.pem'),
        '-out',
        file('.csr'),
        '-subj',
        `/CN=${leaf.hosts[0]}`,
      ]);
      writeFileSync(
        join(workDir, file('.ext')),
        [
          `subjectAltName=${leaf.hosts.map(subjectAltName).join(',')}`,
          'basicConstraints=critical,CA:FALSE',
          'keyUsage=critical,digitalSignature',
          'extendedKeyUsage=serverAuth',
        ].join('\n'),
      );
      openssl(
        workDir,
        [
          'x509',
          '-req',
          '-in',
          file('.csr'),
          '-CA',
          CA_FILE,
          '-CAkey',
          'ca-key.pem',
          '-passin',
          'stdin',
          '-set_serial',
          `0x${randomBytes(16).toString('hex')}`,
          '-days',
          String(days),
          '-extfile',
          file('.ext'),
          '-out',
          file('.pem'),
        ],
        passphrase,
      );
      for (const scratch of [file('.csr'), file('.ext')]) rmSync(join(workDir, scratch));
    }
  } finally {
    rmSync(caKey, { force: true });
  }
}

function certifiedHosts(extraHosts: readonly string[]): string[] {
  for (const host of extraHosts)
    if (!isCertifiableHost(host)) throw new Error(`cannot certify "${host}": not a host name or IP address`);
  return [...new Set([...LOOPBACK_HOSTS, ...extraHosts.map((host) => host.toLowerCase())])];
}

/** `dir` made if missing, and closed to everyone else on every run (an older CLI left it as the umask had it). */
function prepareDirectory(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stats = statSync(dir);
  if (!stats.isDirectory()) throw new Error(`${dir} is not a directory`);
  // A shared directory (the sticky bit, like /tmp) or another user's: listen's keys do not belong there.
  if ((stats.mode & 0o1000) !== 0 || (process.getuid && stats.uid !== process.getuid()))
    throw new Error(`${dir} is a shared directory: give --tls-dir a directory of your own`);
  chmodSync(dir, 0o700);
  for (const legacy of LEGACY_FILES) rmSync(join(dir, legacy), { force: true });
}

/** The generation `current` points to, read through that one link so its files belong together. */
function readCurrent(dir: string): Identity | undefined {
  let generation: string;
  try {
    generation = readlinkSync(join(dir, CURRENT));
  } catch {
    return undefined;
  }
  if (!generation.startsWith(GENERATION_PREFIX) || basename(generation) !== generation) return undefined;
  try {
    const read = (file: string) => readFileSync(join(dir, generation, file), 'utf8');
    return { generation, ca: read(CA_FILE), key: read('server-key.pem'), cert: read('server.pem') };
  } catch {
    return undefined;
  }
}

function usable(identity: Identity, hosts: readonly string[]): boolean {
  try {
    const ca = new X509Certificate(identity.ca);
    const leaf = new X509Certificate(identity.cert);
    const lasts = (certificate: X509Certificate) =>
      Date.parse(certificate.validTo) - Date.now() > RENEW_BEFORE_MS;
    return (
      ca.ca &&
      lasts(ca) &&
      lasts(leaf) &&
      leaf.checkIssued(ca) &&
      leaf.verify(ca.publicKey) &&
      leaf.checkPrivateKey(createPrivateKey(identity.key)) &&
      hosts.every((host) =>
        isIP(host) === 0
          ? leaf.checkHost(host, { wildcards: false, subject: 'never' }) !== undefined
          : leaf.checkIP(host) !== undefined,
      )
    );
  } catch {
    return false;
  }
}

function createGeneration(dir: string, hosts: readonly string[]): string {
  const path = mkdtempSync(join(dir, GENERATION_PREFIX));
  try {
    issueCertificates(path, hosts, [{ name: 'server', hosts }]);
  } catch (err) {
    rmSync(path, { recursive: true, force: true });
    throw err;
  }
  return basename(path);
}

/**
 * Puts a generation in use. Where there was no `current` link (`replacing` null), by creating it: symlink(2) fails
 * if it exists, when a concurrent first run got there first, and its generation is taken instead. When renewing, by
 * renaming a new link over it (atomic: a reader sees the old generation or the new one, never a mix), unless another
 * run has just renewed it.
 */
function install(
  dir: string,
  generation: string,
  replacing: string | undefined | null,
  hosts: readonly string[],
): void {
  const current = join(dir, CURRENT);
  if (replacing === null) {
    try {
      symlinkSync(generation, current);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    return;
  }
  const now = readCurrent(dir);
  if (now !== undefined && now.generation !== replacing && usable(now, hosts)) return;
  const link = join(dir, `${CURRENT}.${randomBytes(6).toString('hex')}`);
  symlinkSync(generation, link);
  renameSync(link, current);
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** `ca.pem` points to `current/ca.pem`: the path a stack is started with stays the same across renewals. */
function linkCaPath(dir: string): void {
  const target = join(CURRENT, CA_FILE);
  try {
    if (readlinkSync(join(dir, CA_FILE)) === target) return;
  } catch {
    // Missing, or the regular file of the first layout: replaced below.
  }
  const link = join(dir, `${CA_FILE}.${randomBytes(6).toString('hex')}`);
  symlinkSync(target, link);
  renameSync(link, join(dir, CA_FILE));
}

function protect(dir: string, generation: string): void {
  chmodSync(join(dir, generation), 0o700);
  chmodSync(join(dir, generation, 'server-key.pem'), 0o600);
}

/**
 * What runs that died left behind (a generation never put in use, a link never renamed), once it is old enough not
 * to be the work of a run going on now.
 */
function removeLeftovers(dir: string, inUse: string): void {
  for (const entry of readdirSync(dir)) {
    const ours = entry.startsWith(GENERATION_PREFIX) || /^(current|ca\.pem)\.[0-9a-f]{12}$/.test(entry);
    if (!ours || entry === inUse) continue;
    try {
      if (Date.now() - lstatSync(join(dir, entry)).mtimeMs > ABANDONED_AFTER_MS) removeEntry(dir, entry);
    } catch {
      // Removed by another run meanwhile.
    }
  }
}

function removeEntry(dir: string, entry: string): void {
  rmSync(join(dir, entry), { recursive: true, force: true });
}

/** A P-256 key as PKCS#8 PEM, encrypted when a passphrase is given. */
function ecKey(passphrase?: string): string {
  const { privateKey } = generateKeyPairSync('ec', {
    namedCurve: 'prime256v1',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding:
      passphrase === undefined
        ? { type: 'pkcs8', format: 'pem' }
        : { type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase },
  });
  return privateKey;
}

function constraint(host: string): string {
  switch (isIP(host)) {
    case 4:
      return `IP:${host}/255.255.255.255`;
    case 6:
      return `IP:${host}/${Array(8).fill('ffff').join(':')}`;
    default:
      return `DNS:${host}`;
  }
}

function subjectAltName(host: string): string {
  return isIP(host) === 0 ? `DNS:${host}` : `IP:${host}`;
}

/** Runs openssl in `cwd`; the CA key's passphrase, if any, goes on its stdin (`-passin stdin`), never in its arguments. */
function openssl(cwd: string, args: string[], passphrase?: string): void {
  try {
    execFileSync('openssl', args, {
      cwd,
      stdio: 'pipe',
      input: passphrase === undefined ? '' : `${passphrase}\n`,
    });
  } catch (err) {
    const { code, stderr } = err as NodeJS.ErrnoException & { stderr?: Buffer };
    if (code === 'ENOENT') throw new Error('listen needs the openssl command to make its local CA');
    throw new Error(`openssl ${args[0]} failed: ${stderr?.toString().trim() ?? String(err)}`);
  }
}
