/**
 * `hookgate/server`: the gateway as a web-standard Hono app, for embedding in your own server or
 * runtime (no `node:*`). `compileConfig` validates a config document; `assembleGateway` builds its
 * backends and the gateway; `createApp` wraps them in the HTTP (and, given `upgradeWebSocket`,
 * WebSocket) routes. On Node, `startGateway` from `hookgate/node` does all three and listens.
 */
export { type AppDeps, createApp } from './app.js';
export { type AssembledGateway, type AssembleOptions, assembleGateway } from './assemble.js';
export type { BackendFactories } from './backends.js';
export { type AuditEvent, Gateway, type GatewayDeps } from './gateway.js';
export type { LiveConfig } from './live-config.js';
export type { Logger } from './logger.js';
export { buildOpenApiDocument } from './openapi.js';
export { compileConfig, type PathChecker, type SecretResolver } from '../config/compile.js';
export { ConfigError, type ConfigIssue } from '../config/errors.js';
export type { GatewayConfig, HookRuntime, ServerSettings, TenantRuntime } from '../config/runtime.js';
export type { ConfigDocument, HookDocument, TenantDocument } from '../config/schema.js';
