import { ConfigError, loadConfig } from './config';
import { serve } from './process';

try {
  await serve(loadConfig());
} catch (error) {
  // A setting the server cannot use, found by reading it or by trying it (an old Redis, say).
  if (!(error instanceof ConfigError)) throw error;
  // One plain line for the operator (there may be no logger yet), and a non-zero exit.
  console.error(`Configuration error: ${error.message}`);
  process.exit(1);
}
