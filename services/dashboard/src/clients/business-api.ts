import { Gateway } from '@gateway/sdk';
import { openSecret, sealSecret } from '@gateway/persistence';
import type { BusinessEntity } from '../persistence';

/**
 * The gateway's public API on behalf of one business, with the API key the dashboard holds for it: sealed at rest,
 * opened only here, for the call, never shown or logged. Every page and action of the dashboard goes through it, so a
 * person does what the public API lets the business do, under the same rules and errors.
 */
export class BusinessApi {
  constructor(
    private readonly gatewayUrl: string,
    private readonly sealKey: Buffer,
  ) {}

  seal(apiKey: string): string {
    return sealSecret(apiKey, this.sealKey);
  }

  forBusiness(business: Pick<BusinessEntity, 'sealedApiKey'>): Gateway {
    return new Gateway({
      apiKey: openSecret(business.sealedApiKey, this.sealKey),
      baseUrl: this.gatewayUrl,
      // A person is waiting: one retry at most, and no long waits behind a Retry-After.
      maxRetries: 1,
      timeoutMs: 15_000,
      maxRetryDelayMs: 2000,
    });
  }
}
