import { BusinessEntity } from './business.entity';
import { MembershipEntity } from './membership.entity';
import { UserEntity } from './user.entity';
import { DashboardAccounts1764401400000 } from './migrations/1764401400000-dashboard-accounts';
import { PayoutAccountEntity } from './payout-account.entity';
import { RecoveryCodeEntity, SecondFactorEntity } from './second-factor.entity';
import { DashboardSecondFactor1764401700000 } from './migrations/1764401700000-dashboard-second-factor';

export { BusinessEntity, MembershipEntity, UserEntity };
export { PayoutAccountEntity, RecoveryCodeEntity, SecondFactorEntity };
export * from './account-store';

export const dashboardDatabase = {
  schema: 'dashboard',
  entities: [
    UserEntity,
    BusinessEntity,
    MembershipEntity,
    SecondFactorEntity,
    RecoveryCodeEntity,
    PayoutAccountEntity,
  ],
  migrations: [DashboardAccounts1764401400000, DashboardSecondFactor1764401700000],
};
export * from './session-store';
export * from './login-attempt-store';
export * from './second-factor-store';
export * from './second-factor-attempt-store';
