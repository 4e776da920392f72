// The offline CLI keeps ICU's answers about a locale and a time zone between runs (cli/intl-answers.ts):
// a pair ICU accepted is not checked again, a refused one always is, and the output is the same either way.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { intlAnswers } from '../../src/cli/intl-answers.js';
import { corpusDir, repoRoot } from '../helpers/corpus.js';

const run = promisify(execFile);
const answerFiles = (folder: string) => readdirSync(folder).filter((f) => /^intl-.*\.json$/.test(f));

describe('intlAnswers', () => {
  it('knows a pair once remembered, in a later process too, in a file of its own user', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'formcast-intl-'));
    expect(intlAnswers(folder).known('fr-FR', 'Europe/Paris')).toBe(false);
    intlAnswers(folder).remember('fr-FR', 'Europe/Paris');
    const later = intlAnswers(folder);
    expect(later.known('fr-FR', 'Europe/Paris')).toBe(true);
    expect(later.known('fr-FR', 'UTC')).toBe(false); // a pair, not each half
    expect(later.known('en-US', 'Europe/Paris')).toBe(false);
    const [file, ...others] = answerFiles(folder);
    expect(others).toEqual([]);
    expect(statSync(path.join(folder, file)).mode & 0o777).toBe(0o600);
  });

  it('keeps at most 64 pairs, the latest', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'formcast-intl-'));
    for (let i = 0; i < 70; i++) intlAnswers(folder).remember(`l${i}`, 'UTC');
    const answers = intlAnswers(folder);
    expect(answers.known('l69', 'UTC')).toBe(true);
    expect(answers.known('l6', 'UTC')).toBe(true);
    expect(answers.known('l5', 'UTC')).toBe(false);
  });

  it('treats a damaged file as none, and without a folder keeps nothing', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'formcast-intl-'));
    intlAnswers(folder).remember('de-DE', 'UTC');
    const [file] = answerFiles(folder);
    for (const bad of ['{"de-DE\\nUTC": true}', 'not json', '[1, 2, {}]']) {
      writeFileSync(path.join(folder, file), bad);
      expect(intlAnswers(folder).known('de-DE', 'UTC')).toBe(false);
    }
    const none = intlAnswers(null);
    none.remember('de-DE', 'UTC');
    expect(none.known('de-DE', 'UTC')).toBe(false);
  });
});

describe.skipIf(!corpusDir())('formcast render with remembered ICU answers (the build)', () => {
  it('remembers an accepted pair, never a refused one, and draws the same dates either way', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'formcast-cli-intl-'));
    const env = { ...process.env, XDG_CACHE_HOME: path.join(dir, 'xdg') };
    const folder = path.join(dir, 'xdg', 'formcast');
    // a form with date fields: the values are read and written in the render's locale
    const template = path.join(corpusDir()!, 'pdfs', 'pdfjs-date-formats.pdf');
    // a German short date: read with de-DE's ICU data, drawn by the form's own format with German month names
    writeFileSync(
      path.join(dir, 'data.json'),
      JSON.stringify({ Date1_af_date: '15.03.2024', Date2_af_date: '14:30', Date3_af_date: '2024-03-15' }),
    );
    const render = (out: string, ...flags: string[]) =>
      run(
        process.execPath,
        [path.join(repoRoot, 'bin/formcast.js'), 'render', template, path.join(dir, 'data.json'), '-o', out, ...flags],
        { env },
      );

    await expect(render(path.join(dir, 'x.pdf'), '--locale', 'xx-XX')).rejects.toMatchObject({
      stderr: expect.stringContaining('Unknown locale "xx-XX"'),
    });
    await expect(render(path.join(dir, 'x.pdf'), '--timezone', 'Mars/Olympus')).rejects.toMatchObject({
      stderr: expect.stringContaining('Unknown time zone "Mars/Olympus"'),
    });
    await render(path.join(dir, '1.pdf'), '--locale', 'de-DE', '--timezone', 'Asia/Tokyo');
    const [file] = answerFiles(folder);
    expect(JSON.parse(readFileSync(path.join(folder, file), 'utf8'))).toEqual(['de-DE\nAsia/Tokyo']);
    await render(path.join(dir, '2.pdf'), '--locale', 'de-DE', '--timezone', 'Asia/Tokyo');
    const text = (await run('pdftotext', [path.join(dir, '2.pdf'), '-']).catch(() => ({ stdout: null }))).stdout;
    if (text !== null) expect(text).toContain('15-März-24'); // (poppler absent: the bytes below still compare)
    expect(readFileSync(path.join(dir, '2.pdf')).equals(readFileSync(path.join(dir, '1.pdf')))).toBe(true);
    // still refused after an accepted run, with the same message
    await expect(
      render(path.join(dir, 'x.pdf'), '--locale', 'xx-XX', '--timezone', 'Asia/Tokyo'),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('Unknown locale "xx-XX"'),
    });
    expect(JSON.parse(readFileSync(path.join(folder, file), 'utf8'))).toEqual(['de-DE\nAsia/Tokyo']);
  });
});
