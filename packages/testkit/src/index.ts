// Every lower helper too, so a service's tests import one kit (packages' own tests import @gateway/testkit-core).
export * from '@gateway/testkit-core';
export * from './handling';
export * from './stack';
export * from './broker-cleanup';
export * from './service-test-bed';
export * from './stack-client';
export * from './webhook-receiver';
export * from './stack-with-webhook-receiver';
export * from './service-stop';
export * from './poison';
export * from './replica';
