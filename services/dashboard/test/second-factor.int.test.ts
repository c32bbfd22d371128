import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import { isolatedEnvironment, waitFor, type IsolatedEnvironment } from '@gateway/testkit';
import { confirmTotpEnrolment } from '../src/application/confirm-totp-enrolment';
import { startTotpEnrolment } from '../src/application/start-totp-enrolment';
import {
  hasSecondFactor,
  verifySecondFactor,
  type SecondFactorDeps,
} from '../src/application/verify-second-factor';
import { hashPassword } from '../src/domain/password';
import { totpCodeAt } from '../src/domain/second-factor';
import {
  dashboardDatabase,
  findSecondFactor,
  insertUser,
  LoginAttemptStore,
  SecondFactorAttemptStore,
} from '../src/persistence';

/** The second factor against real PostgreSQL and Redis: enrolment, a code accepted once, lockout, recovery codes. */
describe('the second factor', () => {
  let env: IsolatedEnvironment;
  let database: DataSource;
  let redis: Redis;
  let deps: SecondFactorDeps;
  const sealKey = randomBytes(32);
  const password = 'a senha certa de teste';
  const passwordHash = hashPassword(password, randomBytes(16));

  const person = async (): Promise<string> => {
    const userId = `usr_${randomBytes(6).toString('hex')}`;
    await insertUser(database.manager, {
      id: userId,
      email: `${userId}@loja.test`,
      passwordHash: await passwordHash,
    });
    return userId;
  };

  /** A person enrolled at `at`; answers their secret and recovery codes. */
  const enrolled = async (at: Date): Promise<{ userId: string; secret: string; recoveryCodes: string[] }> => {
    const userId = await person();
    const started = await startTotpEnrolment(deps, userId);
    if (started.kind !== 'started') throw new Error('not started');
    const confirmed = await confirmTotpEnrolment(
      deps,
      { userId, code: totpCodeAt(started.secret, at), password },
      at,
    );
    if (confirmed.kind !== 'confirmed') throw new Error('not confirmed');
    return { userId, secret: started.secret, recoveryCodes: confirmed.recoveryCodes };
  };

  const verify = (userId: string, code: string, now: Date, recovery = false, clientAddress = '10.0.0.1') =>
    verifySecondFactor(deps, { userId, code, clientAddress, recovery }, now);

  beforeAll(async () => {
    env = await isolatedEnvironment('dashboard');
    database = await openServiceDatabase({ url: env.database.url, ...dashboardDatabase });
    redis = new Redis(env.config.REDIS_URL);
    deps = {
      dataSource: database,
      sealKey,
      failures: new SecondFactorAttemptStore(redis, env.config.REDIS_PREFIX),
      attempts: new LoginAttemptStore(redis, env.config.REDIS_PREFIX),
      attemptsPerMinute: 1000,
      maxFailures: 3,
      lockSeconds: 2,
    };
  });

  afterAll(async () => {
    redis?.disconnect();
    await database?.destroy();
    await env?.database.drop();
  });

  test('enrolment: the secret is sealed at rest, the same until confirmed, confirmed by a first code only', async () => {
    const userId = await person();
    const first = await startTotpEnrolment(deps, userId);
    if (first.kind !== 'started') throw new Error('not started');
    expect(await startTotpEnrolment(deps, userId)).toEqual(first);
    const stored = await findSecondFactor(database.manager, userId);
    expect(stored!.sealedSecret).not.toContain(first.secret);
    expect(stored!.confirmedAt).toBeNull();
    expect(await hasSecondFactor(database, userId)).toBe(false);
    const now = new Date();
    expect(await verify(userId, totpCodeAt(first.secret, now), now)).toEqual({ kind: 'not_enrolled' });

    expect(await confirmTotpEnrolment(deps, { userId, code: '000000', password }, now)).toEqual({
      kind: 'wrong_code',
    });
    // A session alone cannot enrol: the right code with a wrong password is refused.
    const code = totpCodeAt(first.secret, now);
    expect(await confirmTotpEnrolment(deps, { userId, code, password: 'outra senha' }, now)).toEqual({
      kind: 'wrong_password',
    });
    expect(await hasSecondFactor(database, userId)).toBe(false);
    const confirmed = await confirmTotpEnrolment(deps, { userId, code, password }, now);
    expect(confirmed.kind).toBe('confirmed');
    expect(await hasSecondFactor(database, userId)).toBe(true);
    // Confirmed, it is not replaced by a new enrolment.
    expect(await startTotpEnrolment(deps, userId)).toEqual({ kind: 'enrolled' });
    // Recovery codes are stored by hash only.
    const rows = (await database.query(`SELECT code_hash FROM dashboard.recovery_codes WHERE user_id = $1`, [
      userId,
    ])) as Array<{ code_hash: string }>;
    expect(rows).toHaveLength(10);
    if (confirmed.kind !== 'confirmed') return;
    for (const code of confirmed.recoveryCodes)
      expect(rows.map((row) => row.code_hash)).not.toContain(code.replace(/-/g, ''));
  });

  test('a code is accepted once: the enrolment code, a replay, and a code of an earlier step are refused', async () => {
    const now = new Date();
    const { userId, secret } = await enrolled(now);
    // The code that confirmed the enrolment is spent.
    expect(await verify(userId, totpCodeAt(secret, now), now)).toEqual({ kind: 'wrong_code' });
    const later = new Date(now.getTime() + 60_000);
    const code = totpCodeAt(secret, later);
    expect(await verify(userId, code, later)).toEqual({ kind: 'accepted', with: 'code' });
    expect(await verify(userId, code, later)).toEqual({ kind: 'wrong_code' });
    // A code of the step before, still inside the window, is not accepted after a later one was.
    const previous = totpCodeAt(secret, new Date(later.getTime() - 30_000));
    expect(await verify(userId, previous, later)).toEqual({ kind: 'wrong_code' });
  });

  test('two requests with one code at once: one is accepted', async () => {
    const now = new Date();
    const { userId, secret } = await enrolled(now);
    const later = new Date(now.getTime() + 90_000);
    const code = totpCodeAt(secret, later);
    const outcomes = await Promise.all([verify(userId, code, later), verify(userId, code, later)]);
    expect(outcomes.filter((outcome) => outcome.kind === 'accepted')).toHaveLength(1);
  });

  test('wrong codes lock the person, the right code refused too, until the lock ends', async () => {
    const now = new Date();
    const { userId, secret } = await enrolled(now);
    const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);
    expect(await verify(userId, '111111', at(30))).toEqual({ kind: 'wrong_code' });
    expect(await verify(userId, '222222', at(30))).toEqual({ kind: 'wrong_code' });
    expect(await verify(userId, '333333', at(30))).toEqual({ kind: 'locked' });
    expect(await verify(userId, totpCodeAt(secret, at(30)), at(30))).toEqual({ kind: 'locked' });
    // Another person is not affected.
    const other = await enrolled(now);
    expect(await verify(other.userId, totpCodeAt(other.secret, at(30)), at(30))).toMatchObject({
      kind: 'accepted',
    });
    // The lock lasts lockSeconds: Redis ends it; then the right code is accepted and the count starts again.
    const accepted = await waitFor(
      async () => {
        const outcome = await verify(userId, totpCodeAt(secret, at(60)), at(60));
        return outcome.kind === 'accepted' && outcome;
      },
      { timeoutMs: 10_000, intervalMs: 250, what: 'the lock to end' },
    );
    expect(accepted).toEqual({ kind: 'accepted', with: 'code' });
    expect(await verify(userId, '444444', at(90))).toEqual({ kind: 'wrong_code' });
  });

  test('a client address trying too many codes a minute is refused whatever it sends', async () => {
    const now = new Date();
    const { userId, secret } = await enrolled(now);
    const limited = { ...deps, attemptsPerMinute: 1 };
    const address = `10.2.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    const later = new Date(now.getTime() + 30_000);
    const from = (code: string) =>
      verifySecondFactor(limited, { userId, code, clientAddress: address, recovery: false }, later);
    expect(await from('555555')).toEqual({ kind: 'wrong_code' });
    expect(await from(totpCodeAt(secret, later))).toEqual({ kind: 'too_many_attempts' });
  });

  test('a recovery code works once, at sign-in only', async () => {
    const now = new Date();
    const { userId, recoveryCodes } = await enrolled(now);
    const [first, second] = recoveryCodes as [string, string];
    expect(await verify(userId, first, now, false)).toEqual({ kind: 'wrong_code' });
    expect(await verify(userId, first.toLowerCase(), now, true)).toEqual({
      kind: 'accepted',
      with: 'recovery_code',
    });
    expect(await verify(userId, first, now, true)).toEqual({ kind: 'wrong_code' });
    expect(await verify(userId, second, now, true)).toEqual({ kind: 'accepted', with: 'recovery_code' });
  });
});
