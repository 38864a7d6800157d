/**
 * `hookgate/node`: the gateway on Node (what `hookgate serve` runs), the config file loader, the
 * dev token signer and the CLI itself, for embedding or for wrapping in your own launcher.
 */
export { type ReloadedConfig, type RunningGateway, type StartOptions, startGateway } from './server.js';
export { type LoadedConfig, loadConfigFile, nodeSecretResolver } from './config-loader.js';
export { createNodeLogger } from './logger.js';
export { type DevTokenOptions, parseTtl, signDevToken } from './token.js';
export { main } from './cli/cli.js';
