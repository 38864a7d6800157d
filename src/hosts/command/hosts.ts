import type { CommandHost } from './host.js';
import { codex } from '../codex/index.js';
import { copilot } from '../copilot/index.js';
import { gemini } from '../gemini/index.js';

/** Every host that runs `hookgate hook` as its command hook; each answers on …/hooks/{hook}/<dialect>. */
export const COMMAND_HOSTS: readonly CommandHost[] = [codex, copilot, gemini];
