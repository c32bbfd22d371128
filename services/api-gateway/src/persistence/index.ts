import { ApiKeyEntity } from './api-key.entity';
import { BusinessEntity } from './business.entity';
import { IdempotencyKeyEntity } from './idempotency-key.entity';
import { IdentityAndIdempotency1732300007000 } from './migrations/1732300007000-identity-and-idempotency';
import { RetryableIdempotencyKeys1732300008000 } from './migrations/1732300008000-retryable-idempotency-keys';
import { IdempotencyClaims1732400005000 } from './migrations/1732400005000-idempotency-claims';
import { IdempotencyLeases1732400010000 } from './migrations/1732400010000-idempotency-leases';
import { ApiKeyScopesAndExpiry1764400900000 } from './migrations/1764400900000-api-key-scopes-and-expiry';
import { ApiKeyPurpose1764402400000 } from './migrations/1764402400000-api-key-purpose';
import { PaymentReadModel1764403200400 } from './migrations/1764403200400-payment-read-model';
import { PaymentCopyLists1764403200420 } from './migrations/1764403200420-payment-copy-lists';

export { ApiKeyEntity, BusinessEntity, IdempotencyKeyEntity };
export * from './identity-store';
export * from './idempotency-store';
export * from './payment-copy-store';

export const apiGatewayDatabase = {
  schema: 'api_gateway',
  entities: [BusinessEntity, ApiKeyEntity, IdempotencyKeyEntity],
  migrations: [
    IdentityAndIdempotency1732300007000,
    RetryableIdempotencyKeys1732300008000,
    IdempotencyClaims1732400005000,
    IdempotencyLeases1732400010000,
    ApiKeyScopesAndExpiry1764400900000,
    ApiKeyPurpose1764402400000,
    PaymentReadModel1764403200400,
    PaymentCopyLists1764403200420,
  ],
};
