import { loadOrExit } from '@gateway/config';
import { createLogger } from '@gateway/observability';
import { loadMailCatcherConfig } from './config';

/** What of MailDev this process uses: the SMTP server (returned) and its web inbox, started from one config. */
interface MailDevServer {
  listen(callback: (err?: Error) => void): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const MailDev = require('maildev') as (config: Record<string, unknown>) => MailDevServer;

/**
 * The sandbox's mail catcher: MailDev accepts every mail the dashboard sends over SMTP and keeps it in memory (and a
 * temporary folder), shown in its web inbox and answered by its REST API (`GET /email`), which the tests read. It
 * relays nothing. It stops on SIGTERM or SIGINT (MailDev's own handlers).
 */
function main(): void {
  const config = loadOrExit(loadMailCatcherConfig);
  const logger = createLogger('mail-catcher', config.LOG_LEVEL);
  const server = MailDev({
    smtp: config.MAIL_CATCHER_SMTP_PORT,
    web: config.MAIL_CATCHER_WEB_PORT,
    ip: config.MAIL_CATCHER_HOST,
    webIp: config.MAIL_CATCHER_HOST,
    silent: config.LOG_LEVEL !== 'debug',
  });
  server.listen((err) => {
    if (err) {
      logger.fatal({ err: err.message }, 'mail catcher could not listen');
      process.exit(1);
    }
    logger.info(
      {
        smtp: `${config.MAIL_CATCHER_HOST}:${config.MAIL_CATCHER_SMTP_PORT}`,
        web: `http://${config.MAIL_CATCHER_HOST}:${config.MAIL_CATCHER_WEB_PORT}`,
      },
      'mail catcher listening',
    );
  });
}

main();
