import { browserStackForThisFile } from './support/browser-stack';
import { asAPersonUsesIt } from './in-browser/merchant-journey';
import { integrationPagesUnderAttack } from './in-browser/integration-attacks';
import { peopleAndTheAuditLog } from './in-browser/people';
import { underAttack } from './in-browser/attacks';

jest.setTimeout(120_000);

/**
 * The merchant dashboard in Chromium against the whole stack, on one stack and one browser for every part (each in its
 * own module under `in-browser/`, with businesses and people of its own). The parts together do more in a minute than
 * one office would, all from one address: the sign-in attempts per address and the operator API's requests per caller
 * address (the dashboard is one caller for every person) are out of the way. The lock after wrong passwords or codes,
 * which the attacks test, counts per account.
 */
describe('the merchant dashboard in a real browser', () => {
  const shared = browserStackForThisFile({
    LOGIN_ATTEMPTS_PER_MINUTE: '1000',
    ADMIN_RATE_LIMIT_PER_MINUTE: '1000',
  });

  describe('as a person uses it', () => asAPersonUsesIt(shared));
  describe('people: verification, reset, invitations, the audit log', () => peopleAndTheAuditLog(shared));
  describe('under attack', () => underAttack(shared));
  describe('its integration pages under attack', () => integrationPagesUnderAttack(shared));
});
