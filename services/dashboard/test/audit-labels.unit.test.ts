import { auditActionLabels } from '../src/domain/audit';

describe('the audit log’s action labels', () => {
  test('the integration pages’ actions are worded in Portuguese', () => {
    expect({
      webhook_created: auditActionLabels.webhook_created,
      webhook_deleted: auditActionLabels.webhook_deleted,
      webhook_secret_rotated: auditActionLabels.webhook_secret_rotated,
      webhook_test_sent: auditActionLabels.webhook_test_sent,
      webhook_delivery_resent: auditActionLabels.webhook_delivery_resent,
      product_created: auditActionLabels.product_created,
      product_changed: auditActionLabels.product_changed,
      product_deactivated: auditActionLabels.product_deactivated,
      product_reactivated: auditActionLabels.product_reactivated,
      checkout_created: auditActionLabels.checkout_created,
      checkout_changed: auditActionLabels.checkout_changed,
      checkout_deactivated: auditActionLabels.checkout_deactivated,
      checkout_reactivated: auditActionLabels.checkout_reactivated,
      customer_created: auditActionLabels.customer_created,
    }).toEqual({
      webhook_created: 'Endpoint de webhook criado',
      webhook_deleted: 'Endpoint de webhook excluído',
      webhook_secret_rotated: 'Segredo de webhook trocado',
      webhook_test_sent: 'Evento de teste de webhook enviado',
      webhook_delivery_resent: 'Entrega de webhook reenviada',
      product_created: 'Produto criado',
      product_changed: 'Produto alterado',
      product_deactivated: 'Produto desativado',
      product_reactivated: 'Produto reativado',
      checkout_created: 'Checkout criado',
      checkout_changed: 'Checkout alterado',
      checkout_deactivated: 'Checkout desativado',
      checkout_reactivated: 'Checkout reativado',
      customer_created: 'Cliente criado',
    });
  });

  test('no two actions share a label, so an entry names what was done', () => {
    const labels = Object.values(auditActionLabels);
    expect(new Set(labels).size).toBe(labels.length);
  });
});
