import Joi from 'joi';
import { givenId } from './common';
import { errorCodes, type ErrorCode } from './errors';

/** What travels in every AMQP message body. Trace context travels in AMQP headers (W3C traceparent). */
export interface Envelope<TPayload = unknown> {
  id: string;
  /** Versioned message name, e.g. `payment.confirmed.v1`. */
  name: string;
  type: string;
  version: number;
  occurred_at: string;
  correlation_id: string;
  causation_id: string | null;
  /**
   * Commands sent with a caller waiting only: when it stops waiting (ISO-8601). The handler does not start after it,
   * and every hop it makes gives up by then too, so no hop waits longer than its caller still will.
   */
  deadline?: string;
  payload: TPayload;
}

export const envelopeSchema = Joi.object<Envelope>({
  id: givenId.min(1).required(),
  name: Joi.string().required(),
  type: Joi.string().required(),
  version: Joi.number().integer().min(1).required(),
  occurred_at: Joi.string().isoDate().required(),
  correlation_id: givenId.min(1).required(),
  causation_id: givenId.allow(null).required(),
  deadline: Joi.string().isoDate(),
  payload: Joi.object().required(),
});

/** The error part of a failed command reply: one of the public error codes and a message for people. */
export interface ReplyError {
  code: ErrorCode;
  message: string;
}

export type Reply<TResult> = { ok: true; result: TResult } | { ok: false; error: ReplyError };

export const replySchema = Joi.alternatives().try(
  Joi.object({ ok: Joi.valid(true).required(), result: Joi.any().required() }),
  Joi.object({
    ok: Joi.valid(false).required(),
    error: Joi.object({
      code: Joi.string()
        .valid(...errorCodes)
        .required(),
      message: Joi.string().required(),
    }).required(),
  }),
);
