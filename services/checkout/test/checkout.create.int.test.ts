import { randomBytes } from 'node:crypto';
import { createCheckout, createProduct, getCheckout, getCheckoutPage, newPublicId } from '@gateway/contracts';
import { createEnvelope } from '@gateway/messaging';
import { publishAndAwaitParking, testLogger, untilAnsweredOk } from '@gateway/testkit';
import { handleCreateCheckout } from '../src/handlers/checkout.create.v1';
import {
  checkoutCommand,
  checkoutServiceForTheseTests,
  createTestCheckout,
  createTestProduct,
  productCommand,
} from './support/checkout-service';

describe('products and checkouts', () => {
  const bed = checkoutServiceForTheseTests('checkout');

  const count = async (table: 'products' | 'checkouts', businessId: string): Promise<number> => {
    const rows = await bed.service.dataSource.query(
      `SELECT count(*)::int AS n FROM ${table} WHERE business_id = $1`,
      [businessId],
    );
    return rows[0].n;
  };

  describe('product.create.v1', () => {
    test('a product is stored with a prod_ id and its price in centavos', async () => {
      const input = productCommand();
      const reply = await bed.request(createProduct, input);
      expect(reply).toEqual({
        ok: true,
        result: {
          product_id: expect.stringMatching(/^prod_[A-Za-z0-9_-]{24}$/),
          business_id: input.business_id,
          name: 'Curso de Violão',
          description: 'Doze aulas gravadas',
          price_centavos: 4990,
          interval: null,
          status: 'active',
          created_at: expect.any(String),
        },
      });
    });

    test('when the same command is delivered twice, one product is created and both replies are the same', async () => {
      const input = productCommand();
      const messageId = newPublicId('cmd');
      const first = await bed.request(createProduct, input, { messageId });
      const second = await bed.request(createProduct, input, { messageId });
      expect(second).toEqual(first);
      expect(await count('products', input.business_id)).toBe(1);
    });
  });

  describe('checkout.create.v1', () => {
    test('a checkout without a slug is active under the slugified title plus a random suffix', async () => {
      const product = await createTestProduct(bed);
      const input = checkoutCommand(product, {
        title: 'Promoção de Natal',
        metadata: '{"campanha":"natal"}',
      });
      const reply = await bed.request(createCheckout, input);
      expect(reply).toEqual({
        ok: true,
        result: {
          checkout_id: expect.stringMatching(/^chk_[A-Za-z0-9_-]{24}$/),
          business_id: product.business_id,
          product_id: product.product_id,
          slug: expect.stringMatching(/^promocao-de-natal-[a-z0-9]{6}$/),
          title: 'Promoção de Natal',
          return_url: input.return_url,
          cancel_url: input.cancel_url,
          metadata: '{"campanha":"natal"}',
          status: 'active',
          created_at: expect.any(String),
        },
      });
    });

    test('without a title the generated slug comes from the product name', async () => {
      const product = await createTestProduct(bed, { name: 'Café & Pão' });
      const checkout = await createTestCheckout(bed, product);
      expect(checkout.slug).toMatch(/^cafe-pao-[a-z0-9]{6}$/);
      expect(checkout.title).toBeNull();
    });

    test('a free custom slug is kept as given', async () => {
      const product = await createTestProduct(bed);
      const slug = `loja-${randomBytes(4).toString('hex')}`;
      const checkout = await createTestCheckout(bed, product, { slug });
      expect(checkout.slug).toBe(slug);
    });

    test('a taken custom slug is refused with INVALID_FIELDS naming the slug, and nothing is stored', async () => {
      const product = await createTestProduct(bed);
      const first = await createTestCheckout(bed, product);
      const other = await createTestProduct(bed);
      const reply = await bed.request(createCheckout, checkoutCommand(other, { slug: first.slug }));
      expect(reply).toEqual({
        ok: false,
        error: { code: 'INVALID_FIELDS', message: expect.stringContaining('slug') },
      });
      expect(await count('checkouts', other.business_id)).toBe(0);
    });

    test('missing required fields are all listed in one MISSING_FIELDS refusal', async () => {
      const product = await createTestProduct(bed);
      const reply = await bed.request(
        createCheckout,
        checkoutCommand(product, { product_id: '  ', cancel_url: ' ', return_url: 'ftp://x' }),
      );
      expect(reply).toEqual({
        ok: false,
        error: { code: 'MISSING_FIELDS', message: 'Campos obrigatórios ausentes: product_id, cancel_url.' },
      });
    });

    test('a non-http url, JSON-less metadata and a malformed slug are refused with INVALID_FIELDS naming each', async () => {
      const product = await createTestProduct(bed);
      const reply = await bed.request(
        createCheckout,
        checkoutCommand(product, { return_url: 'javascript:alert(1)', slug: 'Não Vale', metadata: '{oops' }),
      );
      expect(reply).toEqual({
        ok: false,
        error: { code: 'INVALID_FIELDS', message: 'Campos inválidos: return_url, slug, metadata.' },
      });
      expect(await count('checkouts', product.business_id)).toBe(0);
    });

    test.each([
      ['an unknown product', () => newPublicId('prod')],
      ['another business’s product', () => null],
    ])('a checkout for %s is refused with NOT_FOUND', async (_case, productId) => {
      const product = await createTestProduct(bed);
      const businessId = newPublicId('biz');
      const reply = await bed.request(
        createCheckout,
        checkoutCommand(product, { business_id: businessId, product_id: productId() ?? product.product_id }),
      );
      expect(reply).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
      expect(await count('checkouts', businessId)).toBe(0);
    });

    test('when a generated slug is already taken, another suffix is drawn and the checkout is created', async () => {
      const product = await createTestProduct(bed);
      const stamp = Date.now().toString(36);
      await createTestCheckout(bed, product, { slug: `colisao-${stamp}-aaaaaa` });
      // The first draw repeats the taken slug; the second draw is all 'b'.
      const draws = [...Array(6).fill(0), ...Array(6).fill(1)];
      const handle = handleCreateCheckout(bed.service.unitOfWork('checkout.create'), () => draws.shift()!);
      const command = checkoutCommand(product, { title: `Colisão ${stamp}` });
      const created = await handle(command, {
        envelope: createEnvelope(createCheckout, command),
        logger: testLogger(),
        attempt: 1,
      });
      expect(created.slug).toBe(`colisao-${stamp}-bbbbbb`);
      expect(await count('checkouts', product.business_id)).toBe(2);
    });

    test('when the same command is delivered twice, one checkout is created and both replies are the same', async () => {
      const product = await createTestProduct(bed);
      const messageId = newPublicId('cmd');
      const first = await bed.request(createCheckout, checkoutCommand(product), { messageId });
      const second = await bed.request(createCheckout, checkoutCommand(product), { messageId });
      expect(first.ok).toBe(true);
      expect(second).toEqual(first);
      expect(await count('checkouts', product.business_id)).toBe(1);
    });
  });

  describe('checkout.get.v1', () => {
    const insertSession = (checkoutId: string, createdAt: string) =>
      bed.service.dataSource.query(
        `INSERT INTO sessions (id, checkout_id, payment_id, status, created_at) VALUES ($1, $2, $3, 'initiated', $4)`,
        [newPublicId('sess'), checkoutId, newPublicId('pay'), createdAt],
      );

    test('the owner reads the checkout with its sessions, newest first', async () => {
      const product = await createTestProduct(bed);
      const checkout = await createTestCheckout(bed, product);
      await insertSession(checkout.checkout_id, '2025-01-01T10:00:00Z');
      await insertSession(checkout.checkout_id, '2025-01-03T10:00:00Z');
      await insertSession(checkout.checkout_id, '2025-01-02T10:00:00Z');
      const reply = await bed.request(getCheckout, {
        business_id: product.business_id,
        checkout_id: checkout.checkout_id,
      });
      expect(reply).toEqual({
        ok: true,
        result: { ...checkout, sessions: expect.any(Array), sessions_has_more: false },
      });
      const sessions = reply.ok ? reply.result.sessions! : [];
      expect(sessions.map((s) => s.created_at)).toEqual([
        '2025-01-03T10:00:00.000Z',
        '2025-01-02T10:00:00.000Z',
        '2025-01-01T10:00:00.000Z',
      ]);
      expect(sessions[0]).toEqual({
        session_id: expect.stringMatching(/^sess_/),
        checkout_id: checkout.checkout_id,
        payment_id: expect.stringMatching(/^pay_/),
        status: 'initiated',
        created_at: expect.any(String),
      });
    });

    test('a checkout of another business, or an unknown one, is NOT_FOUND', async () => {
      const product = await createTestProduct(bed);
      const checkout = await createTestCheckout(bed, product);
      const otherBusiness = await bed.request(getCheckout, {
        business_id: newPublicId('biz'),
        checkout_id: checkout.checkout_id,
      });
      const unknown = await bed.request(getCheckout, {
        business_id: product.business_id,
        checkout_id: newPublicId('chk'),
      });
      expect(otherBusiness).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
      expect(unknown).toEqual(otherBusiness);
    });
  });

  describe('checkout.page.get.v1', () => {
    test('an active checkout shows its public data by slug', async () => {
      const product = await createTestProduct(bed, { description: null });
      const checkout = await createTestCheckout(bed, product, { title: 'Oferta Relâmpago' });
      const reply = await bed.request(getCheckoutPage, { slug: checkout.slug });
      expect(reply).toEqual({
        ok: true,
        result: {
          slug: checkout.slug,
          business_id: product.business_id,
          business_name: 'Estúdio Som',
          product_name: 'Curso de Violão',
          product_description: null,
          title: 'Oferta Relâmpago',
          price_centavos: 4990,
          interval: null,
          cancel_url: checkout.cancel_url,
        },
      });
    });

    test('without a title the page shows the product name, and without a merchant name too', async () => {
      const product = await createTestProduct(bed, { business_name: undefined, name: 'Kit Pincéis' });
      const checkout = await createTestCheckout(bed, product);
      const reply = await bed.request(getCheckoutPage, { slug: checkout.slug });
      expect(reply).toEqual({
        ok: true,
        result: expect.objectContaining({ title: 'Kit Pincéis', business_name: 'Kit Pincéis' }),
      });
    });

    test('an inactive or unknown checkout has no page', async () => {
      const product = await createTestProduct(bed);
      const checkout = await createTestCheckout(bed, product);
      await bed.service.dataSource.query(`UPDATE checkouts SET status = 'inactive' WHERE id = $1`, [
        checkout.checkout_id,
      ]);
      const inactive = await bed.request(getCheckoutPage, { slug: checkout.slug });
      const unknown = await bed.request(getCheckoutPage, { slug: 'ninguem-tem-este-slug' });
      expect(inactive).toEqual({ ok: false, error: { code: 'NOT_FOUND', message: expect.any(String) } });
      expect(unknown).toEqual(inactive);
    });

    test('reading the same page twice with one message id gives the same answer', async () => {
      const product = await createTestProduct(bed);
      const checkout = await createTestCheckout(bed, product);
      const messageId = newPublicId('cmd');
      const first = await bed.request(getCheckoutPage, { slug: checkout.slug }, { messageId });
      const second = await bed.request(getCheckoutPage, { slug: checkout.slug }, { messageId });
      expect(first.ok).toBe(true);
      expect(second).toEqual(first);
    });
  });

  test.each([
    [createProduct.name, { ...productCommand(), price_centavos: 'muito' }],
    [createCheckout.name, { business_id: newPublicId('biz'), product_id: 42 }],
    [getCheckout.name, { business_id: 'nobody', checkout_id: newPublicId('chk') }],
    [getCheckoutPage.name, { slug: ['a'] }],
  ])('a poison %s is parked at once and the commands behind it are still served', async (name, payload) => {
    const envelope = { ...createEnvelope(getCheckoutPage, { slug: 'x' }), name, payload };
    const parked = await publishAndAwaitParking(bed.client, bed.env.config, 'checkout', 'commands', envelope);
    expect(parked).toEqual([expect.objectContaining({ messageId: envelope.id, type: name })]);
    expect((await createTestProduct(bed)).product_id).toMatch(/^prod_/);
  });

  test('after the service loses its broker connection it reconnects and serves every command again', async () => {
    bed.service.broker.dropConnectionForTesting();
    const input = productCommand();
    const messageId = newPublicId('cmd');
    const { result: product } = await untilAnsweredOk(() => bed.request(createProduct, input, { messageId }));
    expect(await count('products', input.business_id)).toBe(1);
    const checkout = await createTestCheckout(bed, product);
    const page = await bed.request(getCheckoutPage, { slug: checkout.slug });
    const read = await bed.request(getCheckout, {
      business_id: product.business_id,
      checkout_id: checkout.checkout_id,
    });
    expect(page.ok && read.ok).toBe(true);
  });
});
