import { Joi, bindHost, commonEnv, loadConfig, variableNames } from '@gateway/config';

/**
 * The mail catcher stands in for a mail provider next to the gateway's own processes (sandbox only), so every variable
 * of its own is prefixed `MAIL_CATCHER_`: a port meant for another process never reaches it.
 */
export interface MailCatcherConfig {
  LOG_LEVEL: string;
  /** The address both listeners bind to (loopback unless told otherwise: the mails it holds carry sign-in links). */
  MAIL_CATCHER_HOST: string;
  /** Where it accepts mail over SMTP (default 1025); the dashboard's SMTP_URL points here in the sandbox. */
  MAIL_CATCHER_SMTP_PORT: number;
  /** Its web inbox and REST API (`GET /email`) for people and tests (default 1080). */
  MAIL_CATCHER_WEB_PORT: number;
}

/** Its variables' rules; the launcher checks the ports it hands the catcher by the same rules. */
export const mailCatcherSchema = Joi.object<MailCatcherConfig>({
  LOG_LEVEL: commonEnv.LOG_LEVEL,
  MAIL_CATCHER_HOST: bindHost.default('127.0.0.1'),
  MAIL_CATCHER_SMTP_PORT: Joi.number().port().default(1025),
  MAIL_CATCHER_WEB_PORT: Joi.number().port().default(1080),
});

export const mailCatcherVariables = variableNames(mailCatcherSchema);

export function loadMailCatcherConfig(env: NodeJS.ProcessEnv = process.env): MailCatcherConfig {
  return loadConfig(mailCatcherSchema, env);
}
