import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import type { DataSource } from 'typeorm';
import { openServiceDatabase } from '@gateway/persistence';
import { isolatedEnvironment, type IsolatedEnvironment } from '@gateway/testkit';
import { acceptInvitation } from '../src/application/accept-invitation';
import { changeMemberRole } from '../src/application/change-member-role';
import { removeMember } from '../src/application/remove-member';
import { resetPassword } from '../src/application/reset-password';
import { revokeInvitation } from '../src/application/revoke-invitation';
import { issueAccountLink, type AccountMailDeps } from '../src/application/shared/account-mail';
import type { Actor } from '../src/application/shared/audit-trail';
import { verifyEmail } from '../src/application/verify-email';
import { hashToken, newOneTimeToken, TOKEN_LIFETIME_MS } from '../src/domain/one-time-token';
import { hashPassword, verifyPassword } from '../src/domain/password';
import type { Role } from '../src/domain/roles';
import {
  AccountTokenEntity,
  auditEntriesOf,
  dashboardDatabase,
  findMembership,
  findUser,
  insertBusiness,
  insertInvitation,
  insertMembership,
  insertUser,
  LoginAttemptStore,
} from '../src/persistence';
import type { AcceptInvitationDeps } from '../src/application/accept-invitation';

/** The mailed tokens and the team's rules against real PostgreSQL: hashed at rest, single use, expiring; the audit log. */
describe('tokens, the team and the audit log', () => {
  let env: IsolatedEnvironment;
  let database: DataSource;
  let deps: AccountMailDeps;
  let redis: Redis;
  let invitations: AcceptInvitationDeps;
  const origin = { clientAddress: '203.0.113.9', userAgent: 'jest' };
  const password = 'a senha certa de teste';

  const person = async (businessId?: string, role: Role = 'owner'): Promise<Actor> => {
    const suffix = randomBytes(5).toString('hex');
    const email = `pessoa-${suffix}@loja.test`;
    const userId = `usr_${suffix}`;
    const business = businessId ?? `biz_${suffix}`;
    await database.transaction(async (manager) => {
      await insertUser(manager, {
        id: userId,
        email,
        passwordHash: await hashPassword(password, randomBytes(16)),
      });
      if (!businessId)
        await insertBusiness(manager, {
          id: business,
          name: 'Loja',
          environment: 'sandbox',
          timeZone: 'America/Sao_Paulo',
          sealedApiKey: 'v1:sealed',
          apiKeyPrefix: 'prefixo12345',
        });
      await insertMembership(manager, { userId, businessId: business, role });
    });
    return { userId, email, businessId: business, role };
  };

  /** The token a link carries. */
  const tokenOf = (link: string): string => new URL(link).searchParams.get('token')!;

  const invite = async (
    actor: Actor,
    email: string,
    role: Role,
    expiresAt = new Date(Date.now() + 60_000),
  ) => {
    const { token, hash } = newOneTimeToken(randomBytes);
    const id = `inv_${randomBytes(6).toString('hex')}`;
    await insertInvitation(database.manager, {
      id,
      businessId: actor.businessId,
      email,
      role,
      tokenHash: hash,
      invitedBy: actor.userId,
      expiresAt,
    });
    return { id, token };
  };

  beforeAll(async () => {
    env = await isolatedEnvironment('dashboard');
    database = await openServiceDatabase({ url: env.database.url, ...dashboardDatabase });
    deps = { dataSource: database, mailer: undefined as never, publicUrl: 'https://painel.example.com' };
    redis = new Redis(env.config.REDIS_URL);
    invitations = {
      dataSource: database,
      attempts: new LoginAttemptStore(redis, env.config.REDIS_PREFIX),
      maxFailures: 3,
      lockSeconds: 60,
    };
  });

  afterAll(async () => {
    redis?.disconnect();
    await database?.destroy();
    await env?.database.drop();
  });

  test('a verification link is stored as its hash only, verifies once, and not after it expires', async () => {
    const owner = await person();
    const now = new Date();
    const link = await issueAccountLink(deps, database.manager, owner.userId, 'verify_email', now);
    expect(link).toMatch(/^https:\/\/painel\.example\.com\/verificar-email\?token=/);
    const token = tokenOf(link);
    const rows = await database.manager.findBy(AccountTokenEntity, { userId: owner.userId });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(hashToken(token));
    const stored = JSON.stringify(
      await database.query('SELECT * FROM account_tokens WHERE user_id = $1', [owner.userId]),
    );
    expect(stored).not.toContain(token);
    expect(rows[0]!.expiresAt.getTime() - now.getTime()).toBe(TOKEN_LIFETIME_MS.verify_email);

    expect((await findUser(database.manager, owner.userId))!.emailVerifiedAt).toBeNull();
    expect(await verifyEmail(database, token, origin)).toBe('verified');
    expect((await findUser(database.manager, owner.userId))!.emailVerifiedAt).not.toBeNull();
    // Used once: the same link again is refused.
    expect(await verifyEmail(database, token, origin)).toBe('invalid');

    const late = tokenOf(await issueAccountLink(deps, database.manager, owner.userId, 'verify_email', now));
    const afterExpiry = new Date(now.getTime() + TOKEN_LIFETIME_MS.verify_email + 1);
    expect(await verifyEmail(database, late, origin, afterExpiry)).toBe('invalid');
    // A token of another purpose is not taken for this one.
    const reset = tokenOf(
      await issueAccountLink(deps, database.manager, owner.userId, 'reset_password', now),
    );
    expect(await verifyEmail(database, reset, origin)).toBe('invalid');
  });

  test('a reset link sets the password once, voids the other reset links, and expires after an hour', async () => {
    const owner = await person();
    const now = new Date();
    const first = tokenOf(
      await issueAccountLink(deps, database.manager, owner.userId, 'reset_password', now),
    );
    const second = tokenOf(
      await issueAccountLink(deps, database.manager, owner.userId, 'reset_password', now),
    );
    const expired = tokenOf(
      await issueAccountLink(
        deps,
        database.manager,
        owner.userId,
        'reset_password',
        new Date(now.getTime() - 3600_001),
      ),
    );
    expect(
      await resetPassword(database, { token: expired, password: 'nova senha comprida' }, origin),
    ).toEqual({
      kind: 'invalid',
    });
    const outcome = await resetPassword(database, { token: first, password: 'nova senha comprida' }, origin);
    expect(outcome).toMatchObject({ kind: 'reset', userId: owner.userId, businessId: owner.businessId });
    const user = (await findUser(database.manager, owner.userId))!;
    expect(await verifyPassword('nova senha comprida', user.passwordHash)).toBe(true);
    expect(user.passwordChangedAt).not.toBeNull();
    expect(user.emailVerifiedAt).not.toBeNull();
    for (const token of [first, second])
      expect(await resetPassword(database, { token, password: 'outra senha comprida' }, origin)).toEqual({
        kind: 'invalid',
      });
    expect(
      await verifyPassword(
        'nova senha comprida',
        (await findUser(database.manager, owner.userId))!.passwordHash,
      ),
    ).toBe(true);
  });

  test('an invitation is accepted once, not after it expires or is revoked, and only by its own business', async () => {
    const owner = await person();
    const email = `convidada-${randomBytes(4).toString('hex')}@loja.test`;
    const { token } = await invite(owner, email, 'developer');
    const joined = await acceptInvitation(invitations, { token, password: 'senha da convidada' }, origin);
    expect(joined).toMatchObject({ kind: 'joined', businessId: owner.businessId });
    const membership = await findMembership(
      database.manager,
      (joined as { userId: string }).userId,
      owner.businessId,
    );
    expect(membership!.role).toBe('developer');
    expect(await acceptInvitation(invitations, { token, password: 'senha da convidada' }, origin)).toEqual({
      kind: 'invalid',
    });

    const expired = await invite(
      owner,
      `tarde-${randomBytes(4).toString('hex')}@loja.test`,
      'viewer',
      new Date(Date.now() - 1),
    );
    expect(
      await acceptInvitation(invitations, { token: expired.token, password: 'senha qualquer 123' }, origin),
    ).toEqual({
      kind: 'invalid',
    });

    const other = await person();
    const pending = await invite(owner, `revogada-${randomBytes(4).toString('hex')}@loja.test`, 'viewer');
    expect(await revokeInvitation(database, other, pending.id, origin)).toBe('not_found');
    expect(await revokeInvitation(database, owner, pending.id, origin)).toBe('revoked');
    expect(
      await acceptInvitation(invitations, { token: pending.token, password: 'senha qualquer 123' }, origin),
    ).toEqual({
      kind: 'invalid',
    });
  });

  test('an existing account joins with its own password; a wrong one leaves the invitation open', async () => {
    const owner = await person();
    const elsewhere = await person();
    const { token } = await invite(owner, elsewhere.email, 'admin');
    expect(await acceptInvitation(invitations, { token, password: 'errada errada' }, origin)).toEqual({
      kind: 'wrong_password',
    });
    expect(await acceptInvitation(invitations, { token, password }, origin)).toEqual({
      kind: 'joined',
      userId: elsewhere.userId,
      businessId: owner.businessId,
    });
    expect((await findMembership(database.manager, elsewhere.userId, owner.businessId))!.role).toBe('admin');
  });

  test("wrong passwords typed to accept an invitation count toward the account's sign-in lockout", async () => {
    const owner = await person();
    const elsewhere = await person();
    const { token } = await invite(owner, elsewhere.email, 'viewer');
    // One failure already counted at sign-in: the invitation's page adds to the same count.
    await invitations.attempts.recordFailure(elsewhere.email, invitations.lockSeconds);
    expect(await acceptInvitation(invitations, { token, password: 'errada 1' }, origin)).toEqual({
      kind: 'wrong_password',
    });
    expect(await acceptInvitation(invitations, { token, password: 'errada 2' }, origin)).toEqual({
      kind: 'locked',
    });
    expect(await invitations.attempts.failures(elsewhere.email)).toBe(3);
    // Locked: the right password is refused too, and the invitation stays open.
    expect(await acceptInvitation(invitations, { token, password }, origin)).toEqual({ kind: 'locked' });
    expect(await findMembership(database.manager, elsewhere.userId, owner.businessId)).toBeNull();
    await invitations.attempts.clearFailures(elsewhere.email);
    await invitations.attempts.recordFailure(elsewhere.email, invitations.lockSeconds);
    expect(await acceptInvitation(invitations, { token, password }, origin)).toMatchObject({
      kind: 'joined',
    });
    // A success clears the count, as a sign-in's does.
    expect(await invitations.attempts.failures(elsewhere.email)).toBe(0);
  });

  test('the business keeps one owner; an admin promotes no one to owner; another business is not found', async () => {
    const owner = await person();
    const admin = await person(owner.businessId, 'admin');
    const developer = await person(owner.businessId, 'developer');
    expect(await changeMemberRole(database, admin, { userId: developer.userId, role: 'owner' }, origin)).toBe(
      'owner_only',
    );
    expect(
      await changeMemberRole(database, developer, { userId: developer.userId, role: 'admin' }, origin),
    ).toBe('not_allowed');
    expect(await changeMemberRole(database, owner, { userId: owner.userId, role: 'admin' }, origin)).toBe(
      'last_owner',
    );
    expect(await removeMember(database, owner, owner.userId, origin)).toBe('last_owner');
    const stranger = await person();
    expect(
      await changeMemberRole(database, stranger, { userId: developer.userId, role: 'viewer' }, origin),
    ).toBe('not_found');
    expect(await removeMember(database, stranger, developer.userId, origin)).toBe('not_found');

    expect(
      await changeMemberRole(database, admin, { userId: developer.userId, role: 'viewer' }, origin),
    ).toBe('changed');
    expect(await removeMember(database, admin, developer.userId, origin)).toBe('removed');
    expect(await findMembership(database.manager, developer.userId, owner.businessId)).toBeNull();
    // Two owners: one may step down, and then the other is the last.
    expect(await changeMemberRole(database, owner, { userId: admin.userId, role: 'owner' }, origin)).toBe(
      'changed',
    );
    expect(await changeMemberRole(database, owner, { userId: owner.userId, role: 'admin' }, origin)).toBe(
      'changed',
    );
    expect(await removeMember(database, { ...admin, role: 'owner' }, admin.userId, origin)).toBe(
      'last_owner',
    );

    const entries = await auditEntriesOf(database.manager, owner.businessId, { limit: 10 });
    expect(entries.map((entry) => entry.action)).toEqual([
      'member_role_changed',
      'member_role_changed',
      'member_removed',
      'member_role_changed',
    ]);
    expect(entries[3]).toMatchObject({
      actorEmail: admin.email,
      target: developer.email,
      details: { from: 'developer', to: 'viewer' },
      clientAddress: origin.clientAddress,
      userAgent: origin.userAgent,
    });
  });

  test('the audit log is append-only: the database refuses to change, delete or truncate an entry', async () => {
    const owner = await person();
    const elsewhere = await person();
    await changeMemberRole(database, owner, { userId: owner.userId, role: 'owner' }, origin);
    const [entry] = await auditEntriesOf(database.manager, owner.businessId, { limit: 1 });
    expect(entry).toBeDefined();
    // Paged newest first by id: an older page starts below the id given.
    expect(await auditEntriesOf(database.manager, owner.businessId, { limit: 1, before: entry!.id })).toEqual(
      [],
    );
    expect(await auditEntriesOf(database.manager, elsewhere.businessId, { limit: 10 })).toEqual([]);
    await expect(
      database.query(`UPDATE audit_entries SET action = 'sign_in' WHERE id = $1`, [entry!.id]),
    ).rejects.toThrow(/append-only/);
    await expect(database.query(`DELETE FROM audit_entries WHERE id = $1`, [entry!.id])).rejects.toThrow(
      /append-only/,
    );
    await expect(database.query(`TRUNCATE audit_entries`)).rejects.toThrow(/append-only/);
    expect(await auditEntriesOf(database.manager, owner.businessId, { limit: 1 })).toEqual([entry]);
  });
});
