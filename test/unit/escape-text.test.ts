import { describe, expect, it } from 'vitest';
import { excerpt } from '../../src/escape/excerpt.js';
import { createLabelCheck, labelProblem, MAX_LABEL_LENGTH } from '../../src/escape/label.js';
import { forTerminal } from '../../src/escape/terminal.js';
import { scrubSecrets } from '../../src/runtime/secrets.js';

describe('forTerminal', () => {
  it.each([
    ['plain text', 'plain text'],
    ['\u001b[2J\u001b[H', '\\x1b[2J\\x1b[H'],
    ['bell\u0007', 'bell\\x07'],
    ['cr\roverwrite', 'cr\\x0doverwrite'],
    ['line\nbreak', 'line\\x0abreak'],
    ['csi \u009b31m', 'csi \\x9b31m'],
    ['del\u007f', 'del\\x7f'],
    ['rtl \u202eevil', 'rtl \\u202eevil'],
    ['sep\u2028x', 'sep\\u2028x'],
    ['accents é and ✓ stay', 'accents é and ✓ stay'],
  ])('%j → %j', (input, shown) => {
    expect(forTerminal(input)).toBe(shown);
  });
});

describe('excerpt', () => {
  it('shows control characters and cuts long text with an ellipsis', () => {
    expect(excerpt('short')).toBe('short');
    expect(excerpt('\u001b]0;x\u0007')).toBe('\\x1b]0;x\\x07');
    const long = excerpt('a'.repeat(10_000));
    expect(long).toBe(`${'a'.repeat(200)}…`);
    expect(excerpt('\u001b'.repeat(100), 20)).toBe(`${'\\x1b'.repeat(5)}…`);
  });
});

describe('label values', () => {
  it.each([
    ['43114', undefined],
    ['/v1/transactions', undefined],
    ['', 'empty'],
    ['x'.repeat(MAX_LABEL_LENGTH), undefined],
    ['x'.repeat(MAX_LABEL_LENGTH + 1), 'longer than 128 characters'],
    ['a\u001b[31mb', 'holds control characters'],
    ['tab\there', 'holds control characters'],
  ])('%j: %s', (value, problem) => {
    expect(labelProblem(value)).toBe(problem);
  });

  it('counts failing values as "invalid" and reports once per family', () => {
    const reports: string[] = [];
    const label = createLabelCheck((family, problem) => reports.push(`${family}: ${problem}`));
    expect(label('f', 'ok')).toBe('ok');
    expect(label('f', 'x'.repeat(500))).toBe('invalid');
    expect(label('f', '\u0007')).toBe('invalid');
    expect(label('g', '\u0007')).toBe('invalid');
    expect(reports).toEqual(['f: longer than 128 characters', 'g: holds control characters']);
  });
});

describe('scrubSecrets', () => {
  it('replaces every occurrence of each secret, ignoring empty ones', () => {
    expect(scrubSecrets('key k1 and k1, pw p@ss', ['k1', '', 'p@ss'])).toBe('key *** and ***, pw ***');
  });
});
