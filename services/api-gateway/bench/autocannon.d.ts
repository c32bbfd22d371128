// The part of autocannon's programmatic API (README "API") the benches use; the package ships no types.
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      onResponse?: (status: number, body: string, context: Record<string, unknown>) => void;
    }

    interface Options {
      url: string;
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Seconds to wait for one response. */
      timeout?: number;
      requests?: Request[];
    }

    /** hdr-histogram-percentiles-obj: latency in ms, requests per second-long sample. */
    interface Histogram {
      average: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
    }

    interface Result {
      requests: Histogram & { sent: number };
      latency: Histogram;
      /** Seconds. */
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      statusCodeStats: Record<string, { count: number }>;
    }
  }

  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export = autocannon;
}
