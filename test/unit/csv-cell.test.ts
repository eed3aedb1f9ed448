import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { csvCell, stringifyCsv } from '../../src/escape/csv-cell.js';

describe('csvCell', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+SUM(A1)', "'+SUM(A1)"],
    ['-2+3', "'-2+3"],
    ['@cmd', "'@cmd"],
    ['\tx', "'\tx"],
    ['\rx', "'\rx"],
    ['=HYPERLINK("http://x","y")', `'=HYPERLINK("http://x","y")`],
    ['-', "'-"],
    ['-1e5', "'-1e5"],
    // Numbers stay numbers, negative ones included; ordinary text is untouched.
    ['-12.5', '-12.5'],
    ['-3', '-3'],
    ['0.000000001', '0.000000001'],
    ['12193263112482.85', '12193263112482.85'],
    ['avax1abc', 'avax1abc'],
    ['', ''],
    ["it's a = b", "it's a = b"],
  ])('%j → %j', (input, output) => {
    expect(csvCell(input)).toBe(output);
  });

  it('writes a document whose cells read back as neutralised text, quoting kept', () => {
    const csv = stringifyCsv([
      ['a', 'b'],
      ['=1,2', '-7.25'],
    ]);
    expect(parse(csv)).toEqual([
      ['a', 'b'],
      ["'=1,2", '-7.25'],
    ]);
  });
});
