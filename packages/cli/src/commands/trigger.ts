import { Argument, Command, Option } from 'commander';
import { PAGE_LIMIT_MAX, centavosToBrl, paymentMethods, tokens } from '@gateway/contracts';
import type { Event, Gateway, Payment, PaymentStatus, Refund, Token } from '@gateway/sdk';
import { SANDBOX_KEY_PREFIX, refuseUnlessSandboxKey, wholeNumber, type Act, type Context } from '../context';
import { formatRecord } from '../output';
import { poll } from '../wait';

/** How each event is brought about in the sandbox, from a new payment. */
const SCENARIOS = {
  'payment.created': { simulate: null, status: null, refund: null },
  'payment.confirmed': { simulate: 'paid', status: 'paid', refund: null },
  'payment.failed': { simulate: 'failed', status: 'failed', refund: null },
  'payment.expired': { simulate: 'expired', status: 'expired', refund: null },
  'payment.cancelled': { simulate: null, status: 'cancelled', refund: null },
  'refund.succeeded': { simulate: 'paid', status: 'paid', refund: 'succeeded' },
  'refund.failed': { simulate: 'paid', status: 'paid', refund: 'failed' },
} as const;
type Triggerable = keyof typeof SCENARIOS;

/** The sandbox refund reason the PSP simulator and the local chain refuse (docs/api.md#versions-and-environments). */
const FAILING_REFUND_REASON = 'simulate:fail';

interface Flags {
  method: 'pix' | 'crypto';
  amount: number;
  token: Token;
  timeout: number;
}

const brl = (centavos: number) =>
  new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' }).format(centavosToBrl(centavos));

export function triggerCommand(act: Act): Command {
  return new Command('trigger')
    .description(
      'sandbox only (an sk_test_ key): create a payment and drive it until the gateway emits the event',
    )
    .addArgument(new Argument('<event>', 'the event to bring about').choices(Object.keys(SCENARIOS)))
    .addOption(new Option('--method <method>', 'payment method').choices(paymentMethods).default('pix'))
    .option('--amount <centavos>', 'amount in centavos', wholeNumber, 5000)
    .addOption(new Option('--token <token>', 'crypto token').choices(tokens).default('usdc'))
    .option('--timeout <seconds>', 'how long to wait for each step', wholeNumber, 60)
    .addHelpText(
      'after',
      `
Nothing is shortcut: "paid" has the PSP simulator pay the PIX charge (or a funded test wallet send the transfer to
the local chain), "expired" moves the payment's clock past its window, refunds (of the payment's net amount: the
fee is not returned) go through the rail, and a
refund.failed uses the reason "${FAILING_REFUND_REASON}", which the sandbox rails refuse. The command ends once the
event is in the events API, so a running "gateway listen" receives it. It refuses any key but a sandbox one
(${SANDBOX_KEY_PREFIX}...) before calling the gateway: with a production key its payments would be real charges.`,
    )
    .action(
      act(async (context: Context, type: Triggerable, flags: Flags) => {
        const { output } = context;
        refuseUnlessSandboxKey(context.apiKey(), 'trigger', 'create and cancel real charges');
        const gateway = context.gateway();
        const scenario = SCENARIOS[type];
        const until = <T>(what: string, probe: () => Promise<T | undefined>) =>
          poll(what, probe, flags.timeout * 1000);

        const created = await output.step(
          `creating a ${flags.method === 'pix' ? 'PIX' : flags.token.toUpperCase()} payment of ${brl(flags.amount)}`,
          () =>
            gateway.payments.create(
              flags.method === 'pix'
                ? { payment_method: 'pix', amount: flags.amount }
                : {
                    payment_method: 'crypto',
                    amount: flags.amount,
                    crypto: { currency: flags.token, network: 'solana' },
                  },
            ),
          (payment) => payment.payment_id,
        );
        const paymentId = created.payment_id;
        if (type === 'payment.cancelled')
          await output.step('cancelling it', () => gateway.payments.cancel(paymentId));
        if (scenario.simulate !== null) {
          const outcome = scenario.simulate;
          await output.step(`sandbox: ${outcome}`, () => gateway.sandbox.simulate(paymentId, { outcome }));
        }
        // A new payment is pending (crypto) or processing (PIX): whichever it is, the event is emitted.
        const status = scenario.status ?? created.status;
        const payment = await output.step(
          `waiting for the payment to be ${status}`,
          () => until(`payment ${paymentId} ${status}`, () => paymentWith(gateway, paymentId, status)),
          (reached) => reached.status,
        );

        let refund: Refund | null = null;
        if (scenario.refund !== null) {
          const wanted = scenario.refund;
          // Its net, not its whole amount: the fee is not returned, so the new payment alone covers only what it
          // credited the balance (a full refund would be INSUFFICIENT_BALANCE for a business with nothing else).
          const net = Math.round((payment.net_amount_brl ?? payment.amount_brl) * 100);
          const opened = await output.step(
            `refunding its net amount, ${brl(net)}`,
            () =>
              gateway.refunds.create(paymentId, {
                amount: net,
                ...(wanted === 'failed' ? { reason: FAILING_REFUND_REASON } : {}),
              }),
            (each) => each.refund_id,
          );
          refund = await output.step(
            `waiting for the refund to be ${wanted}`,
            () =>
              until(`refund ${opened.refund_id} ${wanted}`, async () => {
                const read = await gateway.refunds.get(opened.refund_id);
                return read.status === wanted ? read : undefined;
              }),
            (settled) => settled.status,
          );
        }

        const subject = refund?.refund_id ?? paymentId;
        const event = await output.step(
          `waiting for the ${type} event`,
          () => until(`the ${type} event of ${subject}`, () => eventAbout(gateway, type, subject)),
          (found) => found.id,
        );
        context.output.result({ event, payment, refund }, () =>
          [
            `${output.style('green', 'Triggered')} ${output.style('bold', type)}`,
            formatRecord({
              event: event.id,
              payment: paymentId,
              ...(refund ? { refund: refund.refund_id } : {}),
            }),
          ].join('\n'),
        );
      }),
    );
}

async function paymentWith(
  gateway: Gateway,
  paymentId: string,
  status: PaymentStatus,
): Promise<Payment | undefined> {
  const payment = await gateway.payments.get(paymentId);
  return payment.status === status ? payment : undefined;
}

/** The newest events of the type, searched for the one about this payment or refund. */
async function eventAbout(
  gateway: Gateway,
  type: Triggerable,
  subjectId: string,
): Promise<Event | undefined> {
  const page = await gateway.events.list({ type, limit: PAGE_LIMIT_MAX });
  return page.data.find((event) =>
    'refund_id' in event.data
      ? event.data.refund_id === subjectId
      : 'payment_id' in event.data && event.data.payment_id === subjectId,
  );
}
