/** The line a service's stop logs for each of its stages, in order (ServiceRuntime.stop), as tests expect them. */
export const SERVICE_STOP_STAGE_LINES = [
  'stop: stopped taking new work',
  'stop: work in flight finished',
  'stop: outbox flushed',
  'stop: resources released',
  'stop: broker closed',
  'stop: database closed',
  'stop: telemetry flushed',
];
