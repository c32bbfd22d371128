import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import { isolatedEnvironment, waitFor, type IsolatedEnvironment } from '@gateway/testkit';
import { signIn, type SignInDeps } from '../src/application/sign-in';
import { hashPassword } from '../src/domain/password';
import {
  dashboardDatabase,
  insertBusiness,
  insertMembership,
  insertOperator,
  insertUser,
  LoginAttemptStore,
  SessionStore,
} from '../src/persistence';

/** Sign-in against real PostgreSQL and Redis: the lockout, its window, the per-address limit, sessions' expiry. */
describe('signing in', () => {
  let env: IsolatedEnvironment;
  let database: DataSource;
  let redis: Redis;
  let deps: SignInDeps;
  const password = 'a senha certa de teste';

  /** A person with a membership, under a fresh address. */
  const person = async (): Promise<{ email: string; userId: string; businessId: string }> => {
    const suffix = randomBytes(5).toString('hex');
    const email = `pessoa-${suffix}@loja.test`;
    const userId = `usr_${suffix}`;
    const businessId = `biz_${suffix}`;
    await database.transaction(async (manager) => {
      await insertUser(manager, {
        id: userId,
        email,
        passwordHash: await hashPassword(password, randomBytes(16)),
      });
      await insertBusiness(manager, {
        id: businessId,
        name: 'Loja',
        environment: 'sandbox',
        timeZone: 'America/Sao_Paulo',
        sealedApiKey: 'v1:sealed',
        apiKeyPrefix: 'prefixo12345',
      });
      await insertMembership(manager, { userId, businessId, role: 'owner' });
    });
    return { email, userId, businessId };
  };

  beforeAll(async () => {
    env = await isolatedEnvironment('dashboard');
    database = await openServiceDatabase({ url: env.database.url, ...dashboardDatabase });
    redis = new Redis(env.config.REDIS_URL);
    deps = {
      dataSource: database,
      attempts: new LoginAttemptStore(redis, env.config.REDIS_PREFIX),
      maxFailures: 3,
      lockSeconds: 2,
      attemptsPerMinute: 1000,
    };
  });

  afterAll(async () => {
    redis?.disconnect();
    await database?.destroy();
    await env?.database.drop();
  });

  const attempt = (email: string, given: string, clientAddress = '10.0.0.1') =>
    signIn(deps, { email, password: given, clientAddress });

  test('the right password opens the first business; a wrong one or an unknown address is one answer', async () => {
    const { email, userId, businessId } = await person();
    expect(await attempt(email, password)).toEqual({ kind: 'signed_in', userId, businessId });
    expect(await attempt(email, 'errada')).toEqual({ kind: 'wrong_credentials' });
    expect(await attempt(`ninguem-${randomBytes(4).toString('hex')}@loja.test`, password)).toEqual({
      kind: 'wrong_credentials',
    });
  });

  test('a person of no business signs in as an operator only with an operator grant', async () => {
    const suffix = randomBytes(5).toString('hex');
    const operator = { id: `usr_op${suffix}`, email: `operadora-${suffix}@plataforma.test` };
    const nobody = { id: `usr_no${suffix}`, email: `ninguem-${suffix}@plataforma.test` };
    await database.transaction(async (manager) => {
      for (const person of [operator, nobody])
        await insertUser(manager, { ...person, passwordHash: await hashPassword(password, randomBytes(16)) });
      await insertOperator(manager, { userId: operator.id, invitedBy: null });
    });
    expect(await attempt(operator.email, password)).toEqual({
      kind: 'operator_signed_in',
      userId: operator.id,
    });
    expect(await attempt(operator.email, 'errada')).toEqual({ kind: 'wrong_credentials' });
    // An account with neither a membership nor a grant opens nothing.
    expect(await attempt(nobody.email, password)).toEqual({ kind: 'wrong_credentials' });
  });

  test('past the failures allowed the account is locked, the right password refused, until the lock ends', async () => {
    const { email, userId } = await person();
    expect(await attempt(email, 'errada 1')).toEqual({ kind: 'wrong_credentials' });
    expect(await attempt(email, 'errada 2')).toEqual({ kind: 'wrong_credentials' });
    expect(await attempt(email, 'errada 3')).toEqual({ kind: 'locked' });
    expect(await attempt(email, password)).toEqual({ kind: 'locked' });
    // Another account is not affected.
    const other = await person();
    expect(await attempt(other.email, password)).toMatchObject({ kind: 'signed_in' });
    // The lock lasts lockSeconds: Redis ends it.
    const key = `${env.config.REDIS_PREFIX}dashboard:login-failures:`;
    expect((await redis.keys(`${key}*`)).length).toBeGreaterThan(0);
    const reopened = await waitFor(
      async () => {
        const outcome = await attempt(email, password);
        return outcome.kind === 'signed_in' && outcome;
      },
      { timeoutMs: 10_000, intervalMs: 250, what: 'the lock to end' },
    );
    expect(reopened.userId).toBe(userId);
  });

  test('a success clears the failures counted before it', async () => {
    const { email } = await person();
    expect(await attempt(email, 'errada 1')).toEqual({ kind: 'wrong_credentials' });
    expect(await attempt(email, 'errada 2')).toEqual({ kind: 'wrong_credentials' });
    expect(await attempt(email, password)).toMatchObject({ kind: 'signed_in' });
    expect(await attempt(email, 'errada 3')).toEqual({ kind: 'wrong_credentials' });
    expect(await attempt(email, 'errada 4')).toEqual({ kind: 'wrong_credentials' });
  });

  test('one client address making too many attempts a minute is refused whatever it sends', async () => {
    const { email } = await person();
    const limited = { ...deps, attemptsPerMinute: 2 };
    const now = new Date();
    const from = (address: string) => signIn(limited, { email, password, clientAddress: address }, now);
    const address = `10.1.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
    expect(await from(address)).toMatchObject({ kind: 'signed_in' });
    expect(await from(address)).toMatchObject({ kind: 'signed_in' });
    expect(await from(address)).toEqual({ kind: 'too_many_attempts' });
    expect(await from(`${address}0`)).toMatchObject({ kind: 'signed_in' });
  });

  test('a session is stored under the hash of its id, to expire after its idle time, and ends when destroyed', async () => {
    const sessions = new SessionStore(redis, env.config.REDIS_PREFIX, 1);
    const id = randomBytes(32).toString('base64url');
    await sessions.save(id, { csrfToken: 'token', createdAt: new Date().toISOString(), userId: 'usr_1' });
    expect(await sessions.touch(id)).toMatchObject({ csrfToken: 'token', userId: 'usr_1' });
    const keys = await redis.keys(`${env.config.REDIS_PREFIX}dashboard:session:*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(id);
    // Its idle time: renewed by each use, one second here.
    const ttl = await redis.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1000);
    expect(await sessions.touch(randomBytes(32).toString('base64url'))).toBeNull();
    await sessions.destroy(id);
    expect(await sessions.touch(id)).toBeNull();
  });
});
