import { WatcherHarness } from './support/watcher';
test('timing', async () => {
  let t = Date.now();
  const h = await WatcherHarness.start();
  console.log('start', Date.now() - t);
  for (let i = 0; i < 5; i++) {
    t = Date.now();
    const r = await h.open();
    console.log('open', Date.now() - t);
    t = Date.now();
    await h.pay(r.reference, 1n);
    console.log('pay', Date.now() - t);
    t = Date.now();
    await h.waitForTransfers(r.reference, 1);
    console.log('detect', Date.now() - t);
  }
  t = Date.now();
  await h.close();
  console.log('close', Date.now() - t);
});
