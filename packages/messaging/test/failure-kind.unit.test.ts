import Joi from 'joi';
import {
  BrokerUnavailableError,
  CommandError,
  InvalidMessageError,
  NotYetError,
  RpcTimeoutError,
  failureKind,
  permanentFailureReply,
} from '../src';

/** Shaped as pg's DatabaseError wrapped in TypeORM's QueryFailedError. */
function queryFailed(code: string): Error {
  const driverError = Object.assign(new Error('from postgres'), { code });
  return Object.assign(new Error('query failed'), { name: 'QueryFailedError', driverError });
}

describe('failure kinds', () => {
  test.each(['22021', '22P02', '22003', '23505', '23514', '23502', '23503'])(
    'SQLSTATE %s (bad data or a constraint) is permanent',
    (code) => {
      expect(failureKind(queryFailed(code))).toBe('permanent');
    },
  );

  test.each(['40001', '40P01', '55P03', '57P01', '57P03', '57014', '25P03', '08006', '08001', '53300'])(
    'SQLSTATE %s (the moment, not the data) is transient',
    (code) => {
      expect(failureKind(queryFailed(code))).toBe('transient');
    },
  );

  test.each(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT'])('socket error %s is transient', (code) => {
    expect(failureKind(Object.assign(new Error('socket'), { code }))).toBe('transient');
  });

  test.each([
    'Connection terminated unexpectedly',
    'Connection terminated due to connection timeout',
    'timeout exceeded when trying to connect',
    'Client has encountered a connection error and is not queryable',
  ])('node-postgres losing its connection (%s), which carries no code, is transient', (message) => {
    expect(failureKind(new Error(message))).toBe('transient');
    const wrapped = Object.assign(new Error(message), {
      name: 'QueryFailedError',
      driverError: new Error(message),
    });
    expect(failureKind(wrapped)).toBe('transient');
  });

  test('a database refusing connections (ALLOW_CONNECTIONS false, SQLSTATE 55000) is transient, other 55000s are not', () => {
    const refusing = Object.assign(new Error('database "shop" is not currently accepting connections'), {
      code: '55000',
    });
    expect(failureKind(refusing)).toBe('transient');
    expect(failureKind(queryFailed('55000'))).toBe('unknown');
  });

  test.each([
    "Stream isn't writeable and enableOfflineQueue options is false",
    'Connection is closed.',
    'Command timed out',
    'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.',
    'Channel closed',
    'Channel ended, no reply will be forthcoming',
    'Query runner already released. Cannot run queries anymore.',
    'Database connection provided by a query runner was already released, cannot continue to use its querying methods anymore.',
  ])('Redis, RabbitMQ or TypeORM losing its connection (%s) is transient', (message) => {
    expect(failureKind(new Error(message))).toBe('transient');
  });

  test('broker outages and rail timeouts are transient', () => {
    expect(failureKind(new BrokerUnavailableError())).toBe('transient');
    expect(failureKind(new CommandError('SERVICE_UNAVAILABLE', 'O provedor não respondeu.'))).toBe(
      'transient',
    );
    expect(failureKind(new RpcTimeoutError('pix.charge.open.v1', 4000))).toBe('transient');
  });

  test('a message waiting for one it follows (NotYetError) is transient, never a bug out of attempts', () => {
    expect(failureKind(new NotYetError('refund before its payment was posted'))).toBe('transient');
  });

  test('contract and validation errors, a refusal and a missing entity are permanent', () => {
    expect(failureKind(new CommandError('INVALID_STATUS', 'Status inválido.'))).toBe('permanent');
    expect(failureKind(new InvalidMessageError('bad'))).toBe('permanent');
    expect(failureKind(Joi.number().validate('x').error)).toBe('permanent');
    expect(failureKind(Object.assign(new Error('Could not find'), { name: 'EntityNotFoundError' }))).toBe(
      'permanent',
    );
  });

  test('anything unrecognised is unknown (retried a bounded number of times)', () => {
    expect(failureKind(new Error('boom'))).toBe('unknown');
    expect(failureKind(new TypeError('x is undefined'))).toBe('unknown');
    expect(failureKind(queryFailed('42P01'))).toBe('unknown');
    expect(failureKind('a string')).toBe('unknown');
  });

  test('a command refused for bad data answers INVALID_FIELDS; any other permanent failure INTERNAL_ERROR', () => {
    expect(permanentFailureReply(queryFailed('22021')).code).toBe('INVALID_FIELDS');
    expect(permanentFailureReply(new InvalidMessageError('bad')).code).toBe('INVALID_FIELDS');
    expect(permanentFailureReply(queryFailed('23505')).code).toBe('INTERNAL_ERROR');
  });
});
