declare namespace Cloudflare {
  interface GlobalProps {
    mainModule: typeof import('./entry.js');
  }
  interface Env {
    HOOKGATE_CONFIG: string;
    ACME_KEY: string;
    OTHER_KEY: string;
    HOOKGATE_LIMITER: DurableObjectNamespace;
    HOOKGATE_APPROVALS: DurableObjectNamespace;
  }
}
