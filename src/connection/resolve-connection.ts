// Turns explicit options, the TEMPORAL_* variables and a temporal.toml profile into one set of connection
// settings, with Temporal's own precedence (option > environment > profile > default), using
// @temporalio/envconfig to read the file and the variables exactly as the Temporal CLI and SDKs do.
import { loadClientConfig, loadClientConfigProfile, type ClientConfigProfile } from '@temporalio/envconfig';
import { locateConfigFile, type ConfigFileLocation } from './config-file.js';
import type {
  ConnectionSettings,
  ResolvedTls,
  SettingSource,
  TemporalConnectionOptions,
} from './connection-options.js';
import { ConnectionConfigError } from './errors/connection-config-error.js';

/** Temporal's default frontend address. */
export const DEFAULT_TEMPORAL_ADDRESS = 'localhost:7233';
/** Temporal's default namespace. */
export const DEFAULT_TEMPORAL_NAMESPACE = 'default';

const DEFAULT_PROFILE = 'default';
/** Variables of Temporal's environment configuration (plus TEMPORAL_GRPC_META_* and TEMPORAL_TLS_*). */
const CONNECTION_VARIABLES = new Set([
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS',
  'TEMPORAL_PROFILE',
  'TEMPORAL_CONFIG_FILE',
  'TEMPORAL_CODEC_ENDPOINT',
  'TEMPORAL_CODEC_AUTH',
]);

/**
 * Resolves where and how to connect. Reads the configuration file (if any) but no certificate files: those are
 * read when connecting, so a worker given a ready connection never touches them.
 *
 * @throws ConnectionConfigError for a named profile or configuration file that does not exist, or a file that
 * does not parse.
 */
export function resolveConnection(options: TemporalConnectionOptions = {}): ConnectionSettings {
  const env = setVariables(options.env ?? process.env);
  const file = locateConfigFile(options.configFile, env);
  const profileName = options.profile ?? env.TEMPORAL_PROFILE ?? DEFAULT_PROFILE;
  const profileNamed =
    options.profile !== undefined ? 'the profile option' : env.TEMPORAL_PROFILE ? 'TEMPORAL_PROFILE' : '';
  if (file.from !== 'default' && !file.exists) {
    throw new ConnectionConfigError(
      `The Temporal configuration file ${file.path} (from ${file.from === 'env' ? 'TEMPORAL_CONFIG_FILE' : 'the configFile option'}) ` +
        'does not exist. Fix the path, or unset it to use the TEMPORAL_* variables alone.',
    );
  }
  const profiles = file.exists ? readProfiles(file) : {};
  const found = Object.hasOwn(profiles, profileName);
  if (profileNamed && !found) {
    const known = Object.keys(profiles);
    throw new ConnectionConfigError(
      `Temporal profile '${profileName}' (from ${profileNamed}) is not in ${file.exists ? file.path : `any configuration file (none at ${file.path ?? 'the default location'})`}. ` +
        (known.length > 0
          ? `Profiles there: ${known.map((name) => `'${name}'`).join(', ')}. `
          : 'Create it with: temporal config set --profile <name> --prop address --value <host:port>. ') +
        'Or unset TEMPORAL_PROFILE to use the default profile.',
    );
  }
  const profile = loadProfile(file, found ? profileName : undefined, env);

  const envVariables = Object.keys(env)
    .filter((name) => CONNECTION_VARIABLES.has(name) || /^TEMPORAL_(TLS_|GRPC_META_)/.test(name))
    .sort();
  const source = (explicit: unknown, variable: string, fromProfile: unknown): SettingSource =>
    explicit !== undefined
      ? 'option'
      : env[variable] !== undefined
        ? 'env'
        : fromProfile !== undefined
          ? 'profile'
          : 'default';
  const fileProfile = found ? profiles[profileName] : undefined;
  const apiKey = options.apiKey ?? profile.apiKey;
  const metadata = { ...profile.grpcMeta, ...options.metadata };
  return {
    address: options.address ?? profile.address ?? DEFAULT_TEMPORAL_ADDRESS,
    namespace: options.namespace ?? profile.namespace ?? DEFAULT_TEMPORAL_NAMESPACE,
    ...(apiKey !== undefined ? { apiKey } : {}),
    tls: resolveTls(options, profile, apiKey, env, profileName),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
    profile: { name: profileName, found },
    ...(file.exists && file.path !== undefined ? { configFile: file.path } : {}),
    envVariables,
    sources: {
      address: source(options.address, 'TEMPORAL_ADDRESS', fileProfile?.address),
      namespace: source(options.namespace, 'TEMPORAL_NAMESPACE', fileProfile?.namespace),
    },
  };
}

function resolveTls(
  options: TemporalConnectionOptions,
  profile: ClientConfigProfile,
  apiKey: string | undefined,
  env: Record<string, string | undefined>,
  profileName: string,
): ResolvedTls {
  if (options.tls === false) return { enabled: false, why: 'the tls option is false' };
  if (options.tls === true) return { enabled: true, why: 'the tls option' };
  if (options.tls !== undefined) return { enabled: true, why: 'the tls option', explicit: options.tls };
  const variables = Object.keys(env)
    .filter((name) => name === 'TEMPORAL_TLS' || name.startsWith('TEMPORAL_TLS_'))
    .sort();
  const where = variables.length > 0 ? variables.join(', ') : `the tls settings of profile '${profileName}'`;
  if (profile.tls?.disabled === true) return { enabled: false, why: `TLS is disabled by ${where}` };
  if (profile.tls !== undefined) return { enabled: true, why: where, configured: profile.tls };
  if (apiKey !== undefined) return { enabled: true, why: 'an API key is set, and API keys travel over TLS only' };
  return { enabled: false, why: 'no TLS is configured' };
}

function readProfiles(file: ConfigFileLocation): Record<string, ClientConfigProfile> {
  try {
    return loadClientConfig({ configSource: { path: file.path! } }).profiles;
  } catch (error) {
    throw new ConnectionConfigError(
      `Cannot read the Temporal configuration file ${file.path}: ${messageOf(error)}. Fix the file (it is TOML ` +
        'with [profile.<name>] tables), or set TEMPORAL_CONFIG_FILE to another one.',
      { cause: error },
    );
  }
}

function loadProfile(
  file: ConfigFileLocation,
  profile: string | undefined,
  env: Record<string, string>,
): ClientConfigProfile {
  try {
    return loadClientConfigProfile({
      ...(profile !== undefined && file.exists
        ? { profile, configSource: { path: file.path! } }
        : { disableFile: true }),
      overrideEnvVars: env,
    });
  } catch (error) {
    throw new ConnectionConfigError(`Cannot load the Temporal connection settings: ${messageOf(error)}.`, {
      cause: error,
    });
  }
}

/**
 * The variables that are set. An empty value counts as unset, as it did before profiles existed, except for
 * TEMPORAL_GRPC_META_*, where envconfig reads an empty value as "remove this header of the profile".
 */
function setVariables(env: Record<string, string | undefined>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && (value !== '' || name.startsWith('TEMPORAL_GRPC_META_'))) result[name] = value;
  }
  return result;
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
}
