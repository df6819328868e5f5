// Minimal types for the parts of autocannon the bench uses (the package ships none).
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    /** Called before each request: may change its headers (e.g. a client address per request). */
    requests?: { setupRequest?: (req: { headers?: Record<string, string> }) => { headers?: Record<string, string> } }[];
  }
  interface Histogram {
    average: number;
    p50: number;
    p99: number;
    max: number;
  }
  interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    non2xx: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
