import type { ConnectionSettings, SettingSource } from './connection-options.js';

const ADDRESS_SOURCE: Record<SettingSource, string> = {
  option: 'address from code',
  env: 'address from TEMPORAL_ADDRESS',
  profile: 'address from the profile',
  default: 'default address',
};

/**
 * Where the settings came from and what TLS does, for messages: e.g. "address from TEMPORAL_ADDRESS; profile
 * 'prod' of /home/ana/.config/temporalio/temporal.toml; TEMPORAL_ADDRESS, TEMPORAL_API_KEY set; TLS on (an API
 * key is set, …); API key set". Never includes a secret.
 */
export function describeOrigin(settings: ConnectionSettings): string {
  const parts = [ADDRESS_SOURCE[settings.sources.address]];
  if (settings.profile.found) parts.push(`profile '${settings.profile.name}' of ${settings.configFile}`);
  else if (settings.configFile) parts.push(`no profile '${settings.profile.name}' in ${settings.configFile}`);
  else parts.push('no temporal.toml');
  parts.push(
    settings.envVariables.length > 0 ? `${settings.envVariables.join(', ')} set` : 'no TEMPORAL_* variables set',
  );
  parts.push(`TLS ${settings.tls.enabled ? 'on' : 'off'} (${settings.tls.why})`);
  if (settings.apiKey !== undefined) parts.push('API key set');
  return parts.join('; ');
}
