import Joi from 'joi';

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
  payload: TPayload;
}

export const envelopeSchema = Joi.object<Envelope>({
  id: Joi.string().min(1).max(200).required(),
  name: Joi.string().required(),
  type: Joi.string().required(),
  version: Joi.number().integer().min(1).required(),
  occurred_at: Joi.string().isoDate().required(),
  correlation_id: Joi.string().min(1).max(200).required(),
  causation_id: Joi.string().max(200).allow(null).required(),
  payload: Joi.object().required(),
});

/** The error part of a failed command reply; `code` is one of the public error codes (see @gateway/http-errors). */
export interface ReplyError {
  code: string;
  message: string;
}

export type Reply<TResult> = { ok: true; result: TResult } | { ok: false; error: ReplyError };

export const replySchema = Joi.alternatives().try(
  Joi.object({ ok: Joi.valid(true).required(), result: Joi.any().required() }),
  Joi.object({
    ok: Joi.valid(false).required(),
    error: Joi.object({ code: Joi.string().required(), message: Joi.string().required() }).required(),
  }),
);
