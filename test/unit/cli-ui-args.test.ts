// `durable-agent ui` on the command line: its options, and the mistakes a person can type.
import { describe, expect, it } from 'vitest';
import { parseCommand, type Command } from '../../src/cli/args.js';
import { CliUsageError } from '../../src/cli/errors/cli-usage-error.js';
import { usage } from '../../src/cli/usage.js';

function rejected(argv: string[]): string {
  try {
    parseCommand(argv);
  } catch (error) {
    if (CliUsageError.isInstance(error)) return error.message;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(argv)} to be rejected`);
}

describe('durable-agent ui', () => {
  it('parses its port, user and chat agent, keeping absent options absent', () => {
    expect(parseCommand(['ui'])).toEqual<Command>({ name: 'ui' });
    expect(
      parseCommand(['ui', '--port', '4310', '--user', 'ada', '--agent', 'assistant', '--task-queue', 'orders']),
    ).toEqual<Command>({ name: 'ui', port: 4310, userId: 'ada', agent: 'assistant', taskQueue: 'orders' });
  });

  it('refuses a port that is not one, and arguments it does not take', () => {
    expect(rejected(['ui', '--port', '0'])).toBe("--port must be a port number (1 to 65535), not '0'.");
    expect(rejected(['ui', '--port', '70000'])).toBe("--port must be a port number (1 to 65535), not '70000'.");
    expect(rejected(['ui', '--port', 'http'])).toBe("--port must be a port number (1 to 65535), not 'http'.");
    expect(rejected(['ui', 'extra'])).toBe("Unexpected argument 'extra'.");
  });

  it('says what the page does and how it is secured in its help', () => {
    const help = usage('ui');
    expect(help).toContain('Usage: npx durable-agent ui [options]');
    expect(help).toMatch(/--port N/);
    expect(help).toMatch(/authorizeDecision/);
  });
});
