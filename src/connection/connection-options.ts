import type { TLSConfig } from '@temporalio/client';
import type { ClientConfigTLS } from '@temporalio/envconfig';

/**
 * Where to connect to Temporal and how. Every field is optional: what is not given comes from Temporal's
 * environment configuration (the `TEMPORAL_*` variables, then the selected profile of `temporal.toml`), the
 * same settings the Temporal CLI and SDKs read. A field given here wins over both.
 */
export interface TemporalConnectionOptions {
  /** Frontend `host:port`. Default: `TEMPORAL_ADDRESS`, the profile's `address`, else `localhost:7233`. */
  address?: string;
  /** Default: `TEMPORAL_NAMESPACE`, the profile's `namespace`, else `default`. */
  namespace?: string;
  /**
   * API key, sent as `authorization: Bearer <key>` (Temporal Cloud); turns TLS on unless `tls` is `false`.
   * Default: `TEMPORAL_API_KEY` or the profile's `api_key`.
   */
  apiKey?: string;
  /**
   * `true` for TLS with the system's trusted CAs, `false` for plaintext, or certificates (server CA, client
   * certificate pair for mutual TLS, server name). Default: the `TEMPORAL_TLS*` variables or the profile's `tls`.
   */
  tls?: boolean | TLSConfig;
  /** Extra gRPC metadata on every call (merged over `TEMPORAL_GRPC_META_*` and the profile's `grpc_meta`). */
  metadata?: Record<string, string>;
  /** Profile of the configuration file. Default: `TEMPORAL_PROFILE`, else `default`. */
  profile?: string;
  /**
   * The configuration file. Default: `TEMPORAL_CONFIG_FILE`, else `temporal.toml` in the user's configuration
   * directory (`$XDG_CONFIG_HOME/temporalio` or `~/.config/temporalio` on Linux).
   */
  configFile?: string;
  /** The environment to read `TEMPORAL_*` variables from. Default: `process.env`. */
  env?: Record<string, string | undefined>;
}

/** Where one resolved setting came from. */
export type SettingSource = 'option' | 'env' | 'profile' | 'default';

/** Connection settings once resolved: what to connect to, with what, and where each part came from. */
export interface ConnectionSettings {
  address: string;
  namespace: string;
  apiKey?: string;
  /** TLS as configured, certificate files not read yet (see `toConnectOptions`). */
  tls: ResolvedTls;
  metadata?: Record<string, string>;
  /** The profile looked up, and whether the configuration file had it. */
  profile: { name: string; found: boolean };
  /** The configuration file read, when one exists. */
  configFile?: string;
  /** The `TEMPORAL_*` variables that were set (names only: values can be secrets). */
  envVariables: string[];
  /** Where the address and namespace came from. */
  sources: { address: SettingSource; namespace: SettingSource };
}

/** TLS as configured. */
export type ResolvedTls =
  | { enabled: false; why: string }
  | { enabled: true; why: string; explicit?: TLSConfig; configured?: ClientConfigTLS };
