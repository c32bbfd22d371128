import { loadOrExit } from '@gateway/config';
import { openServiceDatabase } from '@gateway/persistence';
import { loadDashboardConfig } from './config';
import { dashboardDatabase } from './persistence';

/** The `migrate` command: brings the dashboard's schema up to date, then exits. */
async function migrate(): Promise<void> {
  const config = loadOrExit(loadDashboardConfig);
  const dataSource = await openServiceDatabase({ url: config.DATABASE_URL, ...dashboardDatabase });
  await dataSource.destroy();
}

void migrate();
