import { BusinessEntity } from './business.entity';
import { MembershipEntity } from './membership.entity';
import { UserEntity } from './user.entity';
import { DashboardAccounts1764401400000 } from './migrations/1764401400000-dashboard-accounts';

export { BusinessEntity, MembershipEntity, UserEntity };
export * from './account-store';

export const dashboardDatabase = {
  schema: 'dashboard',
  entities: [UserEntity, BusinessEntity, MembershipEntity],
  migrations: [DashboardAccounts1764401400000],
};
export * from './session-store';
export * from './login-attempt-store';
