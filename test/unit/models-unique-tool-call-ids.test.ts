import type { LanguageModelV4Content } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { renameRepeatedIds } from '../../src/models/unique-tool-call-ids.js';

const call = (toolCallId: string, input: string, providerExecuted?: boolean): LanguageModelV4Content => ({
  type: 'tool-call',
  toolCallId,
  toolName: 't',
  input,
  ...(providerExecuted ? { providerExecuted } : {}),
});

describe('renameRepeatedIds', () => {
  it('leaves unique ids alone (same array)', () => {
    const content = [call('a', '{}'), call('b', '{}')];
    expect(renameRepeatedIds(content)).toBe(content);
  });

  it('renames each repeat, keeping order, and gives empty ids one', () => {
    const out = renameRepeatedIds([call('x', '1'), call('x', '2'), call('x~2', '3'), call('', '4'), call('', '5')]);
    expect(out.map((p) => (p as { toolCallId: string }).toolCallId)).toEqual(['x', 'x~2', 'x~2~2', 'call', 'call~2']);
    expect(out.map((p) => (p as { input: string }).input)).toEqual(['1', '2', '3', '4', '5']);
  });

  it('moves a provider-executed result with its renamed call', () => {
    const out = renameRepeatedIds([
      call('s', 'a', true),
      { type: 'tool-result', toolCallId: 's', toolName: 't', result: 'ra' },
      call('s', 'b', true),
      { type: 'tool-result', toolCallId: 's', toolName: 't', result: 'rb' },
    ]);
    expect(out.map((p) => (p as { toolCallId: string }).toolCallId)).toEqual(['s', 's', 's~2', 's~2']);
  });
});
