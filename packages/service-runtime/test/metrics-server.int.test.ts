import type { AddressInfo } from 'node:net';
import { counter } from '@gateway/observability';
import { serveMetrics } from '../src/metrics-server';

describe('metrics listener of services without an HTTP API', () => {
  test('serves Prometheus metrics and a liveness probe that reflects the broker connection', async () => {
    let connected = true;
    counter('metrics_server_test_total', 'A counter only this test uses').inc();
    const { server, stop } = await serveMetrics(0, '127.0.0.1', () => connected);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(200);
      expect(await metrics.text()).toContain('metrics_server_test_total 1');
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      connected = false;
      expect((await fetch(`${base}/healthz`)).status).toBe(503);
      expect((await fetch(`${base}/other`)).status).toBe(404);
    } finally {
      await stop();
    }
  });

  test('binds only the interface it is given, not every interface', async () => {
    const { server, stop } = await serveMetrics(0, '127.0.0.1', () => true);
    try {
      expect((server.address() as AddressInfo).address).toBe('127.0.0.1');
    } finally {
      await stop();
    }
  });
});
