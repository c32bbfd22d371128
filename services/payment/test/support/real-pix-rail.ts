import { startPixAdapter, type PixAdapter } from '@gateway/pix-adapter';
import { loadPixAdapterConfig } from '@gateway/pix-adapter/src/config';
import { startSandboxPspSimulator, type RunningPspSimulator } from '@gateway/psp-simulator';
import { serviceTestBed, startedForTheseTests, testLogger, type ServiceTestBed } from '@gateway/testkit';
import { loadPaymentConfig, type PaymentConfig } from '../../src/config';
import { startPaymentService, type PaymentService } from '../../src/main';

/** The payment service on a test bed with the real PIX rail behind it: the PIX adapter against a sandbox PSP. */
export interface PaymentWithPixRail extends ServiceTestBed<PaymentService> {
  adapter: PixAdapter;
  /** The PSP simulator's base URL (a payer's bank and its console, outside the gateway). */
  pspUrl: string;
  /** Takes the PSP simulator down for good. */
  stopPsp(): Promise<void>;
  /** What the payment service was started with, to start it again after a test stopped it. */
  paymentConfig: PaymentConfig;
}

/**
 * `PaymentWithPixRail`, started before the enclosing describe's tests and closed after them (the adapter and the PSP
 * with it). The adapter's callbacks listen on a free port and it never retries the PSP; `variables` add to each
 * process's own.
 */
export function paymentWithPixRailForTheseTests(
  label: string,
  variables: { adapter?: Record<string, string>; payment?: Record<string, string> } = {},
): PaymentWithPixRail {
  return startedForTheseTests(async () => {
    let psp: RunningPspSimulator | undefined;
    let adapter!: PixAdapter;
    let paymentConfig!: PaymentConfig;
    const bed = await serviceTestBed(label, async (env, cleanup) => {
      const started = await startSandboxPspSimulator(env.config.DATABASE_URL, testLogger('psp'));
      psp = started;
      cleanup.afterStop(async () => psp?.close());
      adapter = await startPixAdapter(
        loadPixAdapterConfig({
          ...env.config,
          PSP_BASE_URL: started.url,
          CALLBACK_PORT: '0',
          PSP_MAX_RETRIES: '0',
          ...variables.adapter,
        }),
      );
      cleanup.afterStop(async () => {
        await adapter.stop();
        await adapter.broker.deleteDeclaredTopology();
      });
      paymentConfig = loadPaymentConfig({ ...env.config, ...variables.payment });
      return startPaymentService(paymentConfig);
    });
    const pspUrl = psp!.url;
    // The bed itself, not a copy: a test that restarts the service sets `service` where `close` finds it.
    return Object.assign(bed, {
      adapter,
      pspUrl,
      paymentConfig,
      async stopPsp() {
        await psp?.close();
        psp = undefined;
      },
    });
  });
}
