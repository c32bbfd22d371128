import { waitFor } from '@gateway/testkit';

/** A mail as the stack's mail catcher (MailDev) answers it on `GET /email`. */
export interface CaughtMail {
  id: string;
  to: Array<{ address: string }>;
  subject: string;
  text: string;
}

/** Every mail the catcher holds now. */
export async function caughtMails(catcherUrl: string): Promise<CaughtMail[]> {
  const response = await fetch(`${catcherUrl}/email`);
  if (!response.ok) throw new Error(`the mail catcher answered ${response.status}`);
  return (await response.json()) as CaughtMail[];
}

/** The mails sent to `address` so far. */
export async function mailsTo(catcherUrl: string, address: string): Promise<CaughtMail[]> {
  return (await caughtMails(catcherUrl)).filter((mail) => mail.to.some((to) => to.address === address));
}

/** Waits for the `nth` (1-based) mail to `address` whose subject is `subject`, as the dashboard sent it over SMTP. */
export async function waitForMail(
  catcherUrl: string,
  address: string,
  subject: string,
  nth = 1,
): Promise<CaughtMail> {
  return waitFor(
    async () => (await mailsTo(catcherUrl, address)).filter((mail) => mail.subject === subject)[nth - 1],
    { timeoutMs: 20_000, intervalMs: 200, what: `mail "${subject}" #${nth} to ${address}` },
  );
}

/** The one link a dashboard mail carries. */
export function linkIn(mail: CaughtMail): string {
  const links = mail.text.match(/https?:\/\/\S+/g) ?? [];
  if (links.length !== 1) throw new Error(`expected one link in "${mail.subject}", found ${links.length}`);
  return links[0]!;
}
