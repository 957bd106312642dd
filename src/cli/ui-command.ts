// `durable-agent ui`: serves the inbox page on 127.0.0.1 for as long as the command runs, and prints the link that
// signs a browser in. The page reads runs through this client's connection; the runs go on when it stops.
import { startInboxUi } from '../ui/ui-server.js';
import { createCommands, missingSearchAttributes } from '../worker/runtime/search-attributes-check.js';
import type { Command } from './args.js';
import { CliFailure } from './errors/cli-failure.js';
import type { CommandContext } from './run-command.js';
import { terminalSafe, terminalSafeLine } from './terminal-text.js';

/** Serves the page until Ctrl-C (`ctx.signal`); exit status 0. */
export async function uiCommand(
  command: Extract<Command, { name: 'ui' }>,
  ctx: CommandContext,
  person: string | undefined,
): Promise<number> {
  const user = command.userId ?? person;
  if (!user) throw new CliFailure('Say who the page acts as: --user <id> (there is no $USER to default to).');
  await warnWithoutAttributes(ctx);
  const ui = await startInboxUi({
    client: ctx.client,
    user,
    ...(command.agent !== undefined ? { agent: command.agent } : {}),
    ...(command.port !== undefined ? { port: command.port } : {}),
    ...(command.taskQueue !== undefined ? { taskQueue: command.taskQueue } : {}),
    onError: (error) => ctx.note(terminalSafe(`ui: ${error instanceof Error ? error.message : String(error)}`)),
  });
  try {
    ctx.out(`Inbox of ${ctx.style.bold(terminalSafeLine(user))}: ${ui.url}`);
    ctx.out(
      ctx.style.dim(
        'Open the link to sign this browser in (it carries a secret: keep it to yourself). Your own runs are yours ' +
          "to decide; other users' need their agent's authorizeDecision. Ctrl-C stops the page; the runs go on.",
      ),
    );
    await new Promise<void>((resolve) => {
      if (!ctx.signal || ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    return 0;
  } finally {
    await ui.close();
  }
}

/** Says so when the namespace lacks the search attributes the inbox finds runs by (it would list nothing). */
async function warnWithoutAttributes(ctx: CommandContext): Promise<void> {
  const { namespace } = ctx.connection;
  try {
    const connection = ctx.client.temporal.connection as {
      operatorService?: {
        listSearchAttributes(request: { namespace: string }): Promise<{ customAttributes?: unknown }>;
      };
    };
    const answer = await connection.operatorService?.listSearchAttributes({ namespace });
    if (!answer) return;
    const missing = missingSearchAttributes((answer.customAttributes ?? {}) as Record<string, unknown>);
    if (missing.length === 0) return;
    ctx.note(
      `warning: namespace '${namespace}' lacks ${missing.map((a) => a.name).join(', ')}, which runs publish to be ` +
        `found: the inbox will show nothing of them. Create them (then restart the workers):\n  ` +
        createCommands(namespace, missing).join('\n  '),
    );
  } catch {
    // A server that does not answer this (permissions): the inbox says what it finds.
  }
}
