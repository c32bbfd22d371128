import { loadOrExit } from '@gateway/config';
import { startTelemetryOfEntry } from '@gateway/observability';
import { loadDashboardConfig } from './config';

// main.ts imports this first: the instrumentations patch http, express, pg and ioredis only if registered before
// those are loaded. Only a process started from main.ts traces (tests import main.ts for its start function).
startTelemetryOfEntry(require.resolve('./main'), 'dashboard', () => loadOrExit(loadDashboardConfig));
