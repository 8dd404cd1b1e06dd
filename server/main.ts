import { ConfigError, loadConfig } from './config';
import { serve } from './process';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  // No logger yet: one plain line for the operator, and a non-zero exit.
  console.error(`Configuration error: ${error.message}`);
  process.exit(1);
}
await serve(config);
