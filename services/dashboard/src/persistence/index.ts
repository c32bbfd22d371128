import { AccountTokenEntity } from './account-token.entity';
import { AuditEntryEntity } from './audit-entry.entity';
import { BusinessEntity } from './business.entity';
import { InvitationEntity } from './invitation.entity';
import { MembershipEntity } from './membership.entity';
import { UserEntity } from './user.entity';
import { DashboardAccounts1764401400000 } from './migrations/1764401400000-dashboard-accounts';
import { PayoutAccountEntity } from './payout-account.entity';
import { RecoveryCodeEntity, SecondFactorEntity } from './second-factor.entity';
import { DashboardSecondFactor1764401700000 } from './migrations/1764401700000-dashboard-second-factor';
import { DashboardPeopleAndAudit1764401600000 } from './migrations/1764401600000-dashboard-people-and-audit';
import { DashboardOperators1764402200000 } from './migrations/1764402200000-dashboard-operators';
import { OperatorEntity } from './operator.entity';
import { DashboardKeyMarked1764402400100 } from './migrations/1764402400100-dashboard-key-marked';

export {
  AccountTokenEntity,
  AuditEntryEntity,
  BusinessEntity,
  InvitationEntity,
  MembershipEntity,
  UserEntity,
};
export { OperatorEntity, PayoutAccountEntity, RecoveryCodeEntity, SecondFactorEntity };
export * from './account-store';
export * from './account-token-store';
export * from './audit-store';
export * from './team-store';
export * from './operator-store';

export const dashboardDatabase = {
  schema: 'dashboard',
  entities: [
    UserEntity,
    BusinessEntity,
    MembershipEntity,
    SecondFactorEntity,
    RecoveryCodeEntity,
    PayoutAccountEntity,
    AccountTokenEntity,
    InvitationEntity,
    AuditEntryEntity,
    OperatorEntity,
  ],
  migrations: [
    DashboardAccounts1764401400000,
    DashboardPeopleAndAudit1764401600000,
    DashboardSecondFactor1764401700000,
    DashboardOperators1764402200000,
    DashboardKeyMarked1764402400100,
  ],
};
export * from './session-store';
export * from './login-attempt-store';
export * from './second-factor-store';
export * from './second-factor-attempt-store';
