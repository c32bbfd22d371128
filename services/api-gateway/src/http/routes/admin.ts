import type { Request } from 'express';
import Joi from 'joi';
import {
  PAGE_LIMIT_MAX,
  businessName,
  createProduct,
  feePercentBps,
  listAllReceivedFunds,
  paymentMethods,
  receivedFundsId,
  receivedFundsKinds,
  receivedFundsStatuses,
  setFeeRule,
  type PaymentMethod,
  businessId,
  isoDate,
  pageSchema,
  PIX_KEY_MAX_LENGTH,
  payoutAccountProblems,
  pixKeyTypes,
  setPayoutAccount,
  setPspAccount,
  getPspAccount,
  removePspAccount,
  pspAccountSettingsFields,
  pspAccountViewSchema,
  pspAccountProblems,
  apiKeyScopes,
  READ_ONLY_SCOPES,
} from '@gateway/contracts';
import { AppError, invalidFields } from '@gateway/http-errors';
import { BrokerUnavailableError, consumerQueueNames, type ParkedQueue } from '@gateway/messaging';
import { createBusiness } from '../../application/create-business';
import { issueApiKey } from '../../application/issue-api-key';
import { revokeApiKey } from '../../application/revoke-api-key';
import { rollApiKey } from '../../application/roll-api-key';
import {
  findBusiness,
  listApiKeysOf,
  listBusinesses,
  markApiKeyPurpose,
  type BusinessEntity,
} from '../../persistence';
import type { IdentityDeps } from '../../application/authenticate-api-key';
import {
  KEY_PREFIX,
  API_KEY_PATTERN,
  ROLL_OVERLAP_DEFAULT_SECONDS,
  ROLL_OVERLAP_MAX_SECONDS,
  apiKeyPurposes,
  apiKeyStatus,
  apiKeyStatuses,
  environments,
} from '../../domain/api-key';
import { defineOperation, json, only, pageOf, type Tag } from '../operation';
import { receivedFunds } from '../openapi/response-schemas';
import { operatorReceivedFundsResponse } from '../payment-responses';
import { centavosField, pageQuery } from '../validation';
import { operatorProduct, operatorProductRecord, productBody } from './products';

// The answers only this family gives (shared ones: openapi/response-schemas.ts).

export const operatorReceivedFunds = receivedFunds
  .keys({
    payment_id: Joi.string()
      .required()
      .description(
        'The payment the money named (possibly one the gateway does not know: kept as unmatched).',
      ),
    business_id: businessId
      .allow(null)
      .required()
      .description("The payment's business; null when the gateway does not know the payment."),
    amount_base_units: Joi.string()
      .pattern(/^[0-9]+$/)
      .allow(null)
      .required()
      .description(
        'Crypto: the amount in token base units (also when the token is not known); null for PIX.',
      ),
    assigned_payment_id: Joi.string()
      .allow(null)
      .required()
      .description(
        'Status `assigned`: the payment whose business the operator credited the money to; null otherwise.',
      ),
    assigned_at: isoDate.allow(null).required(),
    return_reference: Joi.string()
      .allow(null)
      .required()
      .description(
        'Returned by the operator through the rail (`returned_by` `operator`): the PIX devolução id or the Solana ' +
          'signature of the return; null otherwise.',
      ),
    return_failure_reason: Joi.string()
      .allow(null)
      .required()
      .description(
        "Why the operator's last return through the rail failed (the money is `held` again and can be returned " +
          'again); null otherwise.',
      ),
  })
  .id('OperatorReceivedFunds');

const operatorReceivedFundsList = pageSchema(operatorReceivedFunds);

const feeRule = setFeeRule.resultSchema.id('FeeRule');

const environment = Joi.string()
  .valid(...environments)
  .required();
const apiKey = Joi.string().pattern(API_KEY_PATTERN).required().description('Shown once: store it now.');
const keyPrefix = Joi.string().pattern(KEY_PREFIX).required();
const keyScopes = Joi.array()
  .items(Joi.string().valid(...apiKeyScopes))
  .allow(null)
  .required()
  .description('What the key may do (a `:write` scope covers its `:read` one); null: every scope.');

const keyPurpose = Joi.string()
  .valid(...apiKeyPurposes)
  .description(
    'Whom the key is for: `merchant` (every key unless told), or `dashboard`, the key the merchant dashboard holds ' +
      'sealed and acts with, counted against its own rate limit (DASHBOARD_RATE_LIMIT_PER_MINUTE).',
  );

const businessCreated = Joi.object({
  business_id: businessId.required(),
  name: Joi.string().required(),
  environment,
  api_key: apiKey,
  key_prefix: keyPrefix,
  key_purpose: keyPurpose.required(),
  created_at: isoDate.required(),
}).id('BusinessCreated');

const businessDetails = Joi.object({
  business_id: businessId.required(),
  name: Joi.string().required(),
  environment,
  created_at: isoDate.required(),
  api_keys: Joi.array()
    .items(
      Joi.object({
        key_prefix: keyPrefix,
        scopes: keyScopes,
        purpose: keyPurpose.required(),
        status: Joi.string()
          .valid(...apiKeyStatuses)
          .required()
          .description(
            '`rolled`: a successor was issued and this key works until `expires_at`; `expired`, `revoked`: it no longer works.',
          ),
        created_at: isoDate.required(),
        expires_at: isoDate.allow(null).required().description('When a rolled key stops working.'),
        revoked_at: isoDate.allow(null).required(),
        rolled_to: Joi.string().pattern(KEY_PREFIX).allow(null).required().description('Its successor.'),
      }),
    )
    .required(),
  api_keys_has_more: Joi.boolean().required(),
}).id('Business');

const businessSummary = Joi.object({
  business_id: businessId.required(),
  name: Joi.string().required(),
  environment,
  created_at: isoDate.required(),
}).id('BusinessSummary');

const apiKeyIssued = Joi.object({
  business_id: businessId.required(),
  api_key: apiKey,
  key_prefix: keyPrefix,
  scopes: keyScopes,
}).id('ApiKeyIssued');

const apiKeyRolled = Joi.object({
  business_id: businessId.required(),
  api_key: apiKey,
  key_prefix: keyPrefix,
  scopes: keyScopes,
  previous_key_prefix: keyPrefix,
  previous_key_expires_at: isoDate.required().description('When the rolled key stops working.'),
}).id('ApiKeyRolled');

const apiKeyPurposeSet = Joi.object({
  key_prefix: keyPrefix,
  purpose: keyPurpose.required(),
}).id('ApiKeyPurpose');

const apiKeyRevoked = Joi.object({ revoked: Joi.valid(true).required() }).id('ApiKeyRevoked');

const queueCount = (count: string) =>
  Joi.array()
    .items(Joi.object({ queue: Joi.string().required(), [count]: Joi.number().integer().min(0).required() }))
    .required();
const parkedMessages = Joi.object({
  queues: queueCount('parked'),
  total_parked: Joi.number().integer().min(0).required(),
}).id('ParkedMessages');
const redrivenMessages = Joi.object({
  queues: queueCount('redriven'),
  total_redriven: Joi.number().integer().min(0).required(),
}).id('RedrivenMessages');

const payoutAccount = Joi.object({
  business_id: businessId.required(),
  pix_key: Joi.string().required(),
  pix_key_type: Joi.string()
    .valid(...pixKeyTypes)
    .required(),
  holder_document: Joi.string().required(),
  updated_at: isoDate.required(),
}).id('PayoutAccount');

const pspAccount = pspAccountViewSchema.id('PspAccount');
const pspAccountBody = Joi.object(pspAccountSettingsFields);
const pspAccountRemoved = Joi.object({ removed: Joi.valid(true).required() }).id('PspAccountRemoved');

export const businessBody = Joi.object({
  name: businessName.required(),
  key_purpose: keyPurpose.description('Whom the first key is for (`merchant` unless told).'),
});
export const apiKeyPurposeBody = Joi.object({ purpose: keyPurpose.required() });
export const issueApiKeyBody = Joi.object({
  scopes: Joi.array()
    .items(Joi.string().valid(...apiKeyScopes, READ_ONLY_SCOPES))
    .min(1)
    .max(apiKeyScopes.length + 1)
    .description(
      `Limits the key to these scopes (\`${READ_ONLY_SCOPES}\`: every \`:read\` one). Left out: the key may do everything.`,
    ),
});
export const rollApiKeyBody = Joi.object({
  expires_in_seconds: Joi.number()
    .integer()
    .min(0)
    .max(ROLL_OVERLAP_MAX_SECONDS)
    .description(
      `How long the old key keeps working beside the new one: ${ROLL_OVERLAP_DEFAULT_SECONDS} s (a day) unless given, 0 stops it now.`,
    ),
});
export const payoutAccountBody = Joi.object({
  pix_key: Joi.string()
    .min(1)
    .max(PIX_KEY_MAX_LENGTH)
    .required()
    .description(
      "The key in its type's form: CPF 11 digits, CNPJ 14 digits, e-mail, phone `+55` and 10 or 11 digits, EVP a UUID.",
    ),
  pix_key_type: Joi.string()
    .valid(...pixKeyTypes)
    .required(),
  holder_document: Joi.string()
    .pattern(/^(\d{11}|\d{14})$/)
    .required()
    .description(
      "The key holder's CPF (11 digits) or CNPJ (14 digits); a CPF or CNPJ key is its holder's own.",
    ),
});
export const feeRuleBody = Joi.object({
  percent_bps: feePercentBps.required(),
  fixed_centavos: centavosField.min(0).required(),
});
export const redriveBody = Joi.object({
  queue: Joi.string().valid(...consumerQueueNames),
});
export const businessesPage = pageQuery(businessId);
export const allReceivedFundsPage = pageQuery(receivedFundsId);
export const allReceivedFundsFilter = Joi.object({
  kind: Joi.string().valid(...receivedFundsKinds),
  status: Joi.string().valid(...receivedFundsStatuses),
});

/** A business the operator names by a (checked) path id; none is NOT_FOUND. */
export async function existingBusiness(identity: IdentityDeps, id: string): Promise<BusinessEntity> {
  const business = await findBusiness(identity.dataSource.manager, id);
  if (!business) throw new AppError('NOT_FOUND');
  return business;
}

/** The broker's answer; while it is unreachable, SERVICE_UNAVAILABLE. */
async function fromBroker(work: () => Promise<ParkedQueue[]>): Promise<ParkedQueue[]> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof BrokerUnavailableError) throw new AppError('SERVICE_UNAVAILABLE');
    throw err;
  }
}

/** A fee rule's method: any other is UNSUPPORTED_PAYMENT_METHOD (not NOT_FOUND). */
const supportedMethod = (req: Request): void => {
  if (!paymentMethods.includes(req.params.method as PaymentMethod))
    throw new AppError('UNSUPPORTED_PAYMENT_METHOD');
};

/** The document's group of this family's operations. */
export const operatorTag: Tag = {
  name: 'Operator',
  description:
    'The operator API: businesses, API keys (scopes, roll, revoke), fee rules, payout accounts, products, parked messages.',
};

/** The operator API (docs/api.md#operator-api-and-cli); `scripts/admin-cli.ts` wraps it. */
export const adminOperations = [
  defineOperation({
    method: 'post',
    path: '/admin/v1/businesses',
    operationId: 'createBusiness',
    tag: 'Operator',
    area: 'admin',
    summary: 'Create a business and its first API key',
    body: {
      name: 'CreateBusinessRequest',
      schema: businessBody,
      examples: only('A business', { name: 'Loja Exemplo' }),
    },
    cli: {
      command: 'admin create-business',
      description: 'create a business and its first API key (the key is shown once)',
      fields: { name: { argument: 'words', description: 'the business name' } },
    },
    answers: [json(201, 'The business; `api_key` is shown this once.', businessCreated)],
    handle: async ({ body }, { identity }) => {
      const purpose = body.key_purpose ?? 'merchant';
      const created = await createBusiness(identity, body.name, purpose);
      return {
        business_id: created.business.id,
        name: created.business.name,
        environment: created.business.environment,
        api_key: created.apiKey,
        key_prefix: created.keyPrefix,
        key_purpose: purpose,
        created_at: created.business.createdAt.toISOString(),
      };
    },
  }),
  defineOperation({
    method: 'get',
    path: '/admin/v1/businesses',
    operationId: 'listBusinesses',
    tag: 'Operator',
    area: 'admin',
    summary: 'List the businesses, newest first',
    query: [businessesPage],
    cli: {
      command: 'admin businesses',
      description: 'the businesses, newest first (a page)',
      fields: {
        limit: { description: `items per page, 1 to ${PAGE_LIMIT_MAX}` },
        starting_after: { description: 'the page after this business id' },
      },
    },
    answers: [json(200, 'A page of businesses.', pageSchema(businessSummary).id('BusinessList'))],
    handle: async ({ query }, { identity }) => {
      const page = await listBusinesses(identity.dataSource.manager, {
        limit: query.limit,
        startingAfter: query.starting_after ?? null,
      });
      return {
        data: page.businesses.map((business) => ({
          business_id: business.id,
          name: business.name,
          environment: business.environment,
          created_at: business.createdAt.toISOString(),
        })),
        has_more: page.hasMore,
      };
    },
  }),
  defineOperation({
    method: 'get',
    path: '/admin/v1/businesses/{business_id}',
    operationId: 'getBusiness',
    tag: 'Operator',
    area: 'admin',
    summary: 'Read a business and its newest 100 API keys',
    params: { business_id: 'biz' },
    cli: { command: 'admin show-business', description: 'a business and its newest 100 API keys' },
    answers: [json(200, 'The business.', businessDetails)],
    handle: async ({ params }, { identity }) => {
      const business = await existingBusiness(identity, params.business_id);
      const { keys, hasMore } = await listApiKeysOf(identity.dataSource.manager, business.id, PAGE_LIMIT_MAX);
      const now = new Date();
      return {
        business_id: business.id,
        name: business.name,
        environment: business.environment,
        created_at: business.createdAt.toISOString(),
        api_keys: keys.map((key) => ({
          key_prefix: key.keyPrefix,
          scopes: key.scopes,
          purpose: key.purpose,
          status: apiKeyStatus(key, now),
          created_at: key.createdAt.toISOString(),
          expires_at: key.expiresAt?.toISOString() ?? null,
          revoked_at: key.revokedAt?.toISOString() ?? null,
          rolled_to: key.rolledTo,
        })),
        api_keys_has_more: hasMore,
      };
    },
  }),
  defineOperation({
    method: 'post',
    path: '/admin/v1/businesses/{business_id}/api-keys',
    operationId: 'issueApiKey',
    tag: 'Operator',
    area: 'admin',
    summary:
      'Issue another API key, with every scope or limited to some (older keys stay valid until revoked)',
    description:
      'A key limited to scopes is refused any /v1 operation outside them with FORBIDDEN; each operation of the ' +
      'reference names the scope it needs.',
    body: {
      name: 'IssueApiKeyRequest',
      schema: issueApiKeyBody,
      examples: {
        example: { summary: 'Every scope', value: {} },
        readOnly: { summary: 'Read only', value: { scopes: [READ_ONLY_SCOPES] } },
        payments: { summary: 'Payments and refunds', value: { scopes: ['payments:write', 'refunds:write'] } },
      },
    },
    params: { business_id: 'biz' },
    cli: {
      command: 'admin issue-key',
      description:
        'issue a further API key, with every scope or --scopes (the old keys stay valid until revoked)',
      fields: {
        scopes: {
          description: `comma-separated, of: ${READ_ONLY_SCOPES}, ${apiKeyScopes.join(', ')} (default: every scope)`,
        },
      },
    },
    answers: [json(201, 'The key, shown this once.', apiKeyIssued)],
    handle: async ({ params, body }, { identity }) => {
      const business = await existingBusiness(identity, params.business_id);
      const issued = await issueApiKey(identity, business.id, body.scopes);
      return {
        business_id: business.id,
        api_key: issued.apiKey,
        key_prefix: issued.keyPrefix,
        scopes: issued.scopes,
      };
    },
  }),
  defineOperation({
    method: 'post',
    path: '/admin/v1/api-keys/{key_prefix}/roll',
    operationId: 'rollApiKey',
    tag: 'Operator',
    area: 'admin',
    summary: 'Roll an API key: a new key with the same scopes; the old one works until its overlap ends',
    description:
      `The old key keeps working for \`expires_in_seconds\` (${ROLL_OVERLAP_DEFAULT_SECONDS} s unless given, at most ` +
      `${ROLL_OVERLAP_MAX_SECONDS}; 0: it stops now), then is refused as UNAUTHORIZED. A key rolls once: rolling a ` +
      'rolled, expired or revoked key is INVALID_STATUS naming its status.',
    body: {
      name: 'RollApiKeyRequest',
      schema: rollApiKeyBody,
      examples: {
        example: { summary: 'A day of overlap', value: {} },
        now: { summary: 'The old key stops now', value: { expires_in_seconds: 0 } },
      },
    },
    params: { key_prefix: Joi.string().pattern(KEY_PREFIX) },
    errors: ['NOT_FOUND', 'INVALID_STATUS'],
    cli: {
      command: 'admin roll-key',
      description:
        'roll an API key by its prefix: a new key (shown once), the old one working until the overlap ends',
      dashArguments: true,
      fields: {
        expires_in_seconds: {
          flag: 'overlap',
          value: 'seconds',
          description: `how long the old key keeps working (default ${ROLL_OVERLAP_DEFAULT_SECONDS}, 0: stop it now)`,
        },
      },
    },
    answers: [json(201, 'The new key, shown this once, and when the old one stops working.', apiKeyRolled)],
    handle: async ({ params, body }, { identity }) => {
      const rolled = await rollApiKey(
        identity,
        params.key_prefix,
        body.expires_in_seconds ?? ROLL_OVERLAP_DEFAULT_SECONDS,
      );
      if (rolled.kind === 'not_found') throw new AppError('NOT_FOUND');
      if (rolled.kind === 'refused')
        throw new AppError(
          'INVALID_STATUS',
          `Esta chave de API não pode ser trocada no status ${rolled.status}.`,
        );
      return {
        business_id: rolled.businessId,
        api_key: rolled.apiKey,
        key_prefix: rolled.keyPrefix,
        scopes: rolled.scopes,
        previous_key_prefix: params.key_prefix,
        previous_key_expires_at: rolled.previousExpiresAt.toISOString(),
      };
    },
  }),
  defineOperation({
    method: 'put',
    path: '/admin/v1/api-keys/{key_prefix}/purpose',
    operationId: 'setApiKeyPurpose',
    tag: 'Operator',
    area: 'admin',
    summary: "Say whom an API key is for: a merchant's, or the merchant dashboard's own (its own rate limit)",
    description:
      'The merchant dashboard marks the keys it holds (those it was given before keys had a purpose) this way; a ' +
      'roll keeps the purpose. Takes effect within 5 seconds. No `/v1` operation changes it.',
    body: {
      name: 'ApiKeyPurposeRequest',
      schema: apiKeyPurposeBody,
      examples: only("The dashboard's key", { purpose: 'dashboard' }),
    },
    params: { key_prefix: Joi.string().pattern(KEY_PREFIX) },
    errors: ['NOT_FOUND'],
    cli: {
      command: 'admin set-key-purpose',
      description: "mark an API key by its prefix as a merchant's or the dashboard's own",
      dashArguments: true,
      fields: { purpose: { argument: 'one', description: 'merchant or dashboard' } },
    },
    answers: [json(200, 'The purpose in force.', apiKeyPurposeSet)],
    handle: async ({ params, body }, { identity }) => {
      if (!(await markApiKeyPurpose(identity.dataSource.manager, params.key_prefix, body.purpose)))
        throw new AppError('NOT_FOUND');
      await identity.cache.drop(params.key_prefix);
      return { key_prefix: params.key_prefix, purpose: body.purpose };
    },
  }),
  defineOperation({
    method: 'delete',
    path: '/admin/v1/api-keys/{key_prefix}',
    operationId: 'revokeApiKey',
    tag: 'Operator',
    area: 'admin',
    summary: 'Revoke an API key: it stops working within 5 seconds',
    params: { key_prefix: Joi.string().pattern(KEY_PREFIX) },
    errors: ['NOT_FOUND'],
    cli: {
      command: 'admin revoke-key',
      description: 'revoke an API key by its prefix (it stops working within 5 s)',
      // A prefix may begin with '-' (its characters are base64url): an argument, never an option.
      dashArguments: true,
    },
    answers: [json(200, 'Revoked.', apiKeyRevoked)],
    handle: async ({ params }, { identity }) => {
      if (!(await revokeApiKey(identity, params.key_prefix))) throw new AppError('NOT_FOUND');
      return { revoked: true };
    },
  }),
  defineOperation({
    method: 'put',
    path: '/admin/v1/businesses/{business_id}/fee-rules/{method}',
    operationId: 'setFeeRule',
    tag: 'Operator',
    area: 'admin',
    summary: "Set the business's fee for a payment method",
    description: 'fee = round-half-up(amount × percent_bps / 10000) + fixed_centavos, capped at the amount.',
    body: {
      name: 'FeeRuleRequest',
      schema: feeRuleBody,
      examples: only('0.99% + R$ 0,10', { percent_bps: 99, fixed_centavos: 10 }),
    },
    params: {
      business_id: 'biz',
      method: Joi.string()
        .valid(...paymentMethods)
        .description('Any other method is UNSUPPORTED_PAYMENT_METHOD.'),
    },
    // The method first (UNSUPPORTED_PAYMENT_METHOD), then the body, then the business.
    checks: [supportedMethod, 'body', 'params'],
    commands: [setFeeRule],
    errors: ['UNSUPPORTED_PAYMENT_METHOD'],
    cli: {
      command: 'admin set-fee',
      description: "set a business's fee rule for a method: fee = amount × bps / 10000 + fixed",
      fields: {
        method: { description: 'pix or crypto' },
        percent_bps: { argument: 'one', value: 'bps', description: 'basis points (99 = 0.99 %)' },
        fixed_centavos: { argument: 'one', value: 'fixed', description: 'fixed part in centavos' },
      },
    },
    answers: [json(200, 'The rule in force.', feeRule)],
    handle: async ({ params, body, send }, { identity }) => {
      const business = await existingBusiness(identity, params.business_id);
      return send(setFeeRule, {
        business_id: business.id,
        method: params.method as PaymentMethod,
        ...body,
      });
    },
  }),
  defineOperation({
    method: 'put',
    path: '/admin/v1/businesses/{business_id}/payout-account',
    operationId: 'setPayoutAccount',
    tag: 'Operator',
    area: 'admin',
    summary: "Set the business's payout account (where its payouts go)",
    description:
      "Replaces the business's payout PIX key. Payouts requested afterwards go there; one already requested keeps " +
      'the account it was requested with. The merchant API shows the key masked only.',
    body: {
      name: 'PayoutAccountRequest',
      schema: payoutAccountBody,
      examples: only('A CNPJ key', {
        pix_key: '12345678000195',
        pix_key_type: 'cnpj',
        holder_document: '12345678000195',
      }),
    },
    params: { business_id: 'biz' },
    commands: [setPayoutAccount],
    errors: ['INVALID_FIELDS'],
    cli: {
      command: 'admin set-payout-account',
      description: "set where a business's payouts go: its own PIX key and the key holder's CPF or CNPJ",
      fields: {
        pix_key: { argument: 'one', value: 'key', description: 'the PIX key' },
        pix_key_type: { description: 'cpf, cnpj, email, phone or evp' },
        holder_document: { description: "the key holder's CPF or CNPJ, digits only" },
      },
    },
    answers: [json(200, 'The payout account in force.', payoutAccount)],
    handle: async ({ params, body, send }, { identity }) => {
      // The key's form for its type, before anything is looked up.
      const problems = payoutAccountProblems(body);
      if (problems.length > 0) throw invalidFields(problems);
      const business = await existingBusiness(identity, params.business_id);
      return send(setPayoutAccount, { business_id: business.id, ...body });
    },
  }),
  defineOperation({
    method: 'put',
    path: '/admin/v1/businesses/{business_id}/psp-account',
    operationId: 'setPspAccount',
    tag: 'Operator',
    area: 'admin',
    summary: "Set the business's own PSP account (the direct model)",
    description:
      "The business's charges are opened from now on at its own PSP account, paid into its own Pix key, and its " +
      "money never passes through the platform's account; the ledger records only the fees it owes. The client " +
      'secret, the certificate and its passphrase are sealed at rest and never answered. A charge already opened ' +
      'keeps the account it was opened at (docs/money-model.md#custodial-and-direct-models).',
    body: {
      name: 'PspAccountRequest',
      schema: pspAccountBody,
      examples: only('An account at an API Pix PSP', {
        profile: 'bcb',
        base_url: 'https://pix.example-bank.com.br/v2',
        oauth_token_url: 'https://pix.example-bank.com.br/oauth/token',
        client_id: 'client-id-from-the-bank',
        client_secret: 'client-secret-from-the-bank',
        pix_key: '12345678000195',
      }),
    },
    params: { business_id: 'biz' },
    commands: [setPspAccount],
    errors: ['INVALID_FIELDS'],
    cli: {
      command: 'admin set-psp-account',
      description: "set a business's own PSP account: its charges are opened there and paid into its own key",
      fields: {
        profile: { description: 'bcb, efi, bb, itau, sicoob, inter or santander' },
        base_url: { description: 'where the PSP mounts API Pix v2, version path included' },
        oauth_token_url: { description: "the PSP's OAuth token endpoint" },
        client_id: { description: 'the OAuth client id' },
        client_secret: { description: 'the OAuth client secret (sealed, never shown again)' },
        pix_key: { description: "the business's receiving Pix key at its PSP" },
        certificate_p12: { description: 'the client certificate, a base64 .p12 (sealed, never shown again)' },
        certificate_passphrase: { description: 'the passphrase of the .p12' },
      },
    },
    answers: [json(200, 'The PSP account in force, without its secrets.', pspAccount)],
    handle: async ({ params, body, send }, { identity }) => {
      // What the profile needs, before anything is looked up.
      const problems = pspAccountProblems(body);
      if (problems.length > 0) throw invalidFields(problems);
      const business = await existingBusiness(identity, params.business_id);
      return send(setPspAccount, { business_id: business.id, ...body });
    },
  }),
  defineOperation({
    method: 'get',
    path: '/admin/v1/businesses/{business_id}/psp-account',
    operationId: 'getPspAccount',
    tag: 'Operator',
    area: 'admin',
    summary: "Read the business's own PSP account, without its secrets",
    description:
      "The client id masked; the secret, the certificate and its passphrase are never answered. NOT_FOUND: the business uses the platform's account.",
    params: { business_id: 'biz' },
    commands: [getPspAccount],
    errors: ['NOT_FOUND'],
    cli: {
      command: 'admin show-psp-account',
      description: "a business's own PSP account (no secret is shown)",
    },
    answers: [json(200, 'The PSP account in force.', pspAccount)],
    handle: async ({ params, send }, { identity }) => {
      const business = await existingBusiness(identity, params.business_id);
      return send(getPspAccount, { business_id: business.id });
    },
  }),
  defineOperation({
    method: 'delete',
    path: '/admin/v1/businesses/{business_id}/psp-account',
    operationId: 'removePspAccount',
    tag: 'Operator',
    area: 'admin',
    summary: "Return the business to the platform's PSP account",
    description:
      "New charges are opened at the platform's account again. INVALID_STATUS while a charge opened at the " +
      "business's own account is still open; devoluções of Pix paid into it still go through it.",
    params: { business_id: 'biz' },
    commands: [removePspAccount],
    errors: ['NOT_FOUND', 'INVALID_STATUS'],
    cli: {
      command: 'admin remove-psp-account',
      description: "return a business to the platform's PSP account (refused while it has open charges)",
    },
    answers: [json(200, 'Removed.', pspAccountRemoved)],
    handle: async ({ params, send }, { identity }) => {
      const business = await existingBusiness(identity, params.business_id);
      return send(removePspAccount, { business_id: business.id });
    },
  }),
  defineOperation({
    method: 'post',
    path: '/admin/v1/businesses/{business_id}/products',
    operationId: 'createProduct',
    tag: 'Operator',
    area: 'admin',
    summary: 'Create a product (what checkouts sell)',
    body: {
      name: 'CreateProductRequest',
      schema: productBody,
      codes: { amount: ['price'] },
      examples: only('A product', {
        name: 'Camiseta',
        price: 7990,
        description: 'Algodão orgânico',
      }),
    },
    params: { business_id: 'biz' },
    checks: ['body', 'params'],
    commands: [createProduct],
    errors: ['INVALID_AMOUNT'],
    cli: {
      command: 'admin create-product',
      description: 'create a product (checkouts sell products)',
      fields: {
        name: { argument: 'one' },
        price: { argument: 'one', description: 'price in centavos' },
        description: { argument: 'words' },
      },
    },
    answers: [json(201, 'The product.', operatorProductRecord)],
    handle: async ({ params, body, send }, { identity }) => {
      const business = await existingBusiness(identity, params.business_id);
      const product = await send(createProduct, {
        business_id: business.id,
        name: body.name,
        description: body.description ?? null,
        price_centavos: body.price,
        interval: body.interval ?? null,
      });
      return operatorProduct(product);
    },
  }),
  // Money kept outside the happy path across every business, newest first: `?kind=unreadable&status=held` is what the
  // watcher has not been able to read yet (the SolanaTransactionsUnread alert's list).
  defineOperation({
    method: 'get',
    path: '/admin/v1/received-funds',
    operationId: 'listAllReceivedFunds',
    tag: 'Operator',
    area: 'admin',
    summary: 'List money received outside the happy path across every business',
    description:
      'Newest first, a page at a time, each record with its payment and business. `kind=unreadable&status=held` ' +
      'lists the transactions paying our references that the watcher has not been able to read yet (it retries ' +
      'them; the `SolanaTransactionsUnread` alert fires while any stays unread); `kind=unmatched` the transfers ' +
      'that named several payments (or a payment the gateway does not know: `business_id` null).',
    query: [allReceivedFundsFilter, allReceivedFundsPage],
    commands: [listAllReceivedFunds],
    cli: {
      command: 'admin received-funds',
      description: 'money kept outside the happy path across every business, newest first (a page)',
      help:
        'What the watcher has not been able to read yet (the SolanaTransactionsUnread alert):\n' +
        '  gateway admin received-funds --kind unreadable --status held',
      fields: {
        limit: { description: `items per page, 1 to ${PAGE_LIMIT_MAX}` },
        starting_after: { description: 'the page after this funds_id' },
      },
    },
    answers: [json(200, 'A page of received funds.', operatorReceivedFundsList)],
    handle: async ({ query, send }) => {
      const { limit, starting_after, ...filter } = query;
      const funds = await send(listAllReceivedFunds, {
        ...filter,
        ...pageOf({ limit, starting_after }),
      });
      return {
        data: funds.data.map(operatorReceivedFundsResponse),
        has_more: funds.has_more,
      };
    },
  }),
  defineOperation({
    method: 'get',
    path: '/admin/v1/parked',
    operationId: 'listParkedMessages',
    tag: 'Operator',
    area: 'admin',
    summary: 'Count the messages parked after failing past their retries',
    cli: {
      command: 'admin parked',
      description: 'parked messages (failed for good or past the retry bound), by queue',
    },
    answers: [json(200, 'Parked messages per queue.', parkedMessages)],
    handle: async (_input, { broker }) => {
      const queues = await fromBroker(() => broker.listParked());
      return { queues, total_parked: queues.reduce((sum, queue) => sum + queue.parked, 0) };
    },
  }),
  defineOperation({
    method: 'post',
    path: '/admin/v1/parked/redrive',
    operationId: 'redriveParkedMessages',
    tag: 'Operator',
    area: 'admin',
    summary: 'Send parked messages back to their queues',
    body: { name: 'RedriveRequest', schema: redriveBody, examples: only('Every queue', {}) },
    cli: {
      command: 'admin redrive-parked',
      description: 'move parked messages back to their queue (e.g. payment.events), or of every queue',
      fields: { queue: { argument: 'one' } },
    },
    answers: [json(200, 'What was sent back, per queue.', redrivenMessages)],
    handle: async ({ body }, { broker }) => {
      const moved = await fromBroker(() => broker.redriveParked(body.queue));
      return {
        queues: moved.map(({ queue, parked }) => ({ queue, redriven: parked })),
        total_redriven: moved.reduce((sum, queue) => sum + queue.parked, 0),
      };
    },
  }),
];
