import { loadOrExit } from '@gateway/config';
import { openServiceDatabase } from '@gateway/persistence';
import { inviteOperator } from '../application/invite-operator';
import { MailNotSent, Mailer } from '../clients/mailer';
import { loadDashboardConfig } from '../config';
import { isEmail, normaliseEmail } from '../domain/sign-up-form';
import { dashboardDatabase } from '../persistence';

/**
 * The `operator:invite <email>` command: invites a person to operate the platform (the first operator; the others
 * are invited from the console), mailing them the link that sets their password. Recorded in the audit log as done
 * from this machine's command line.
 */
async function main(): Promise<void> {
  const email = normaliseEmail(process.argv[2]);
  if (!isEmail(email)) {
    process.stderr.write('usage: pnpm --filter @gateway/dashboard operator:invite <email>\n');
    process.exit(2);
  }
  const config = loadOrExit(loadDashboardConfig);
  const dataSource = await openServiceDatabase({ url: config.DATABASE_URL, ...dashboardDatabase });
  const mailer = new Mailer(config.SMTP_URL, config.MAIL_FROM);
  try {
    const outcome = await inviteOperator(
      { dataSource, mailer, publicUrl: config.DASHBOARD_PUBLIC_URL },
      { email, invitedBy: null },
      { clientAddress: null, userAgent: 'operator:invite (linha de comando)' },
    );
    if (outcome.kind === 'refused') {
      process.stderr.write(
        outcome.reason === 'member'
          ? `${email} is a business's account: an operator needs an address of their own\n`
          : `${email} is an operator already\n`,
      );
      process.exitCode = 1;
    } else process.stdout.write(`invitation mailed to ${email}\n`);
  } catch (err) {
    if (!(err instanceof MailNotSent)) throw err;
    // One line that says what to fix; the relay's address without its credentials.
    process.stderr.write(
      `${email}: invited, but ${err.message} (SMTP_URL at ${new URL(config.SMTP_URL).host}); once mail can be ` +
        'sent, run the command again: it mails a new link\n',
    );
    process.exitCode = 1;
  } finally {
    mailer.close();
    await dataSource.destroy();
  }
}

void main();
