import { existsSync } from 'node:fs';
import { platform } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** The Temporal configuration file to read, and why that one. */
export interface ConfigFileLocation {
  /** Undefined when no location can be worked out (no home directory). */
  path: string | undefined;
  exists: boolean;
  /** `option` and `env` (TEMPORAL_CONFIG_FILE) name a file on purpose: it missing is a mistake. */
  from: 'option' | 'env' | 'default';
}

/**
 * Where Temporal's SDKs and CLI look for `temporal.toml`: the given file, else `TEMPORAL_CONFIG_FILE`, else
 * `temporalio/temporal.toml` in the user's configuration directory (`$XDG_CONFIG_HOME` or `~/.config` on Linux,
 * `~/Library/Application Support` on macOS, `%APPDATA%` on Windows). Mirrors `@temporalio/envconfig`, which
 * does not expose the path it chose, so that messages can name the file.
 */
export function locateConfigFile(
  configFile: string | undefined,
  env: Record<string, string | undefined>,
): ConfigFileLocation {
  if (configFile !== undefined) return { path: configFile, exists: existsSync(configFile), from: 'option' };
  const fromEnv = env.TEMPORAL_CONFIG_FILE;
  if (fromEnv) return { path: fromEnv, exists: existsSync(fromEnv), from: 'env' };
  const dir = userConfigDir(env);
  const path = dir === undefined ? undefined : join(dir, 'temporalio', 'temporal.toml');
  return { path, exists: path !== undefined && existsSync(path), from: 'default' };
}

function userConfigDir(env: Record<string, string | undefined>): string | undefined {
  switch (platform()) {
    case 'win32':
      return env.APPDATA || undefined;
    case 'darwin':
      return env.HOME ? join(env.HOME, 'Library', 'Application Support') : undefined;
    default: {
      const xdg = env.XDG_CONFIG_HOME;
      if (xdg) return isAbsolute(xdg) ? xdg : undefined;
      return env.HOME ? join(env.HOME, '.config') : undefined;
    }
  }
}
