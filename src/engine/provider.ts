import type { ProviderSettings } from '../config/engine.js';
import type { ProxySettings } from '../config/proxy.js';
import { createAnthropicEngine } from './anthropic.js';
import type { Engine } from './engine.js';
import { createOpenAIEngine } from './openai.js';
import { createSystemOneEngine } from './systemone.js';

/**
 * A provider's engine, from its settings as the edge read them (config/engine.ts):
 * cheap, it only sets up the connection pool; nothing is sent until the first call.
 */
export function providerEngine(settings: ProviderSettings, options: { timeoutMs: number; proxy: ProxySettings }): Engine {
  switch (settings.kind) {
    case 'systemone':
      return createSystemOneEngine({ ...settings, ...options });
    case 'openai':
      return createOpenAIEngine({ ...settings, ...options });
    case 'anthropic':
      return createAnthropicEngine({ ...settings, ...options });
  }
}
