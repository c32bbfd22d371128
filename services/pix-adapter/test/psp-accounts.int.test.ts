import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import {
  getPspAccount,
  newPublicId,
  removePspAccount,
  setPspAccount,
  type SetPspAccount,
} from '@gateway/contracts';
import { openSecret, parseSealingKey } from '@gateway/persistence';
import { type TestPki, createTestPki } from '@gateway/testkit';
import { startAdapterAgainstSandboxPsp, type AdapterAgainstSandboxPsp } from './support/adapter';

const SEALING_KEY = randomBytes(32).toString('base64');

/** Everything the service writes to stdout (its log lines) while `run` runs. */
async function stdoutDuring(run: () => Promise<void>): Promise<string> {
  const written: string[] = [];
  const original = fs.writeSync;
  const spy = jest.spyOn(fs, 'writeSync').mockImplementation(((
    fd: number,
    data: unknown,
    ...rest: never[]
  ) => {
    if (fd === 1) written.push(String(data));
    return (original as (...args: unknown[]) => number)(fd, data, ...rest);
  }) as typeof fs.writeSync);
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return written.join('');
}

describe("a business's own PSP account, sealed at rest", () => {
  let adapter: AdapterAgainstSandboxPsp;
  let pki: TestPki;

  beforeAll(async () => {
    pki = createTestPki();
    adapter = await startAdapterAgainstSandboxPsp('psp-accounts', () => ({
      PSP_ACCOUNT_SEALING_KEY: SEALING_KEY,
      LOG_LEVEL: 'debug',
    }));
  });
  afterAll(async () => {
    await adapter?.bed.close();
    pki?.remove();
  });

  const anAccount = (overrides: Partial<SetPspAccount> = {}): SetPspAccount => ({
    business_id: newPublicId('biz'),
    profile: 'bcb',
    base_url: 'https://pix.example-bank.test/v2',
    oauth_token_url: 'https://pix.example-bank.test/oauth/token',
    client_id: `client-${randomBytes(6).toString('hex')}`,
    client_secret: `secret-${randomBytes(12).toString('hex')}`,
    pix_key: '12345678000195',
    ...overrides,
  });

  test('the secret, the certificate and its passphrase are stored only sealed, never answered, never logged', async () => {
    const { bed } = adapter;
    const certificate = fs.readFileSync(pki.client.p12Path).toString('base64');
    const account = anAccount({
      certificate_p12: certificate,
      certificate_passphrase: pki.client.passphrase,
    });
    const secrets = [account.client_secret!, certificate, pki.client.passphrase];
    let answers = '';
    const logged = await stdoutDuring(async () => {
      const set = await bed.request(setPspAccount, account);
      const read = await bed.request(getPspAccount, { business_id: account.business_id });
      expect(set.ok && read.ok).toBe(true);
      answers = JSON.stringify([set, read]);
    });
    expect(logged).toContain('PSP account set');
    for (const value of secrets) {
      expect(answers).not.toContain(value);
      expect(logged).not.toContain(value);
    }
    expect(answers).not.toContain(account.client_id);
    expect(answers).toContain('"has_client_certificate":true');

    const rows: Array<Record<string, string | null>> = await bed.service.dataSource.query(
      'SELECT * FROM psp_accounts WHERE business_id = $1',
      [account.business_id],
    );
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    for (const value of secrets) expect(stored).not.toContain(value);
    const key = parseSealingKey(SEALING_KEY);
    expect(openSecret(rows[0]!.client_secret_sealed!, key)).toBe(account.client_secret);
    expect(openSecret(rows[0]!.certificate_sealed!, key)).toBe(certificate);
    expect(openSecret(rows[0]!.certificate_passphrase_sealed!, key)).toBe(pki.client.passphrase);
  });

  test('a certificate that does not open with its passphrase is INVALID_FIELDS, and the answer quotes neither', async () => {
    const { bed } = adapter;
    const certificate = fs.readFileSync(pki.client.p12Path).toString('base64');
    const account = anAccount({ certificate_p12: certificate, certificate_passphrase: 'not-the-passphrase' });
    const reply = await bed.request(setPspAccount, account);
    expect(reply.ok ? null : reply.error.code).toBe('INVALID_FIELDS');
    expect(JSON.stringify(reply)).not.toContain('not-the-passphrase');
    expect(JSON.stringify(reply)).not.toContain(account.client_secret);
    const read = await bed.request(getPspAccount, { business_id: account.business_id });
    expect(read.ok ? null : read.error.code).toBe('NOT_FOUND');
  });

  test('a changed account keeps its id and takes a new revision; removed, the business is back on the platform account', async () => {
    const { bed } = adapter;
    const account = anAccount();
    const first = await bed.request(setPspAccount, account);
    const second = await bed.request(setPspAccount, { ...account, client_secret: 'rotated-secret-value' });
    if (!first.ok || !second.ok) throw new Error('set refused');
    expect(second.result.account_id).toBe(first.result.account_id);
    const [stored] = (await bed.service.dataSource.query(
      'SELECT revision FROM psp_accounts WHERE account_id = $1',
      [first.result.account_id],
    )) as Array<{ revision: number }>;
    expect(stored?.revision).toBe(2);

    const removed = await bed.request(removePspAccount, { business_id: account.business_id });
    expect(removed.ok).toBe(true);
    const read = await bed.request(getPspAccount, { business_id: account.business_id });
    expect(read.ok ? null : read.error.code).toBe('NOT_FOUND');
    const again = await bed.request(removePspAccount, { business_id: account.business_id });
    expect(again.ok ? null : again.error.code).toBe('NOT_FOUND');
  });
});
