import type { DataSource } from 'typeorm';
import type { GetSubscription, SubscriptionRecord } from '@gateway/contracts';
import { CommandError } from '@gateway/messaging';
import { wallToday } from '../application/shared/subscription-events';
import { toSubscriptionRecord } from '../domain/subscription';
import { findSubscription } from '../persistence';

/** The calling business's subscription; another business's, or none, is NOT_FOUND. */
export function handleGetSubscription(dataSource: DataSource) {
  return async (query: GetSubscription): Promise<SubscriptionRecord> => {
    const subscription = await findSubscription(dataSource.manager, query.subscription_id, query.business_id);
    if (!subscription) throw new CommandError('NOT_FOUND', 'Assinatura não encontrada.');
    return toSubscriptionRecord(subscription, wallToday());
  };
}
