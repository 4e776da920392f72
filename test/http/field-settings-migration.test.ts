import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/adapters/db/database.js';
import { databaseBefore } from '../helpers/older-database.js';
import { DATABASES } from '../helpers/server.js';
import { loadTemplate } from '../../src/modules/templates/template-view.js';
import { parseFieldSettings } from '../../src/modules/templates/field-settings.js';
import { saveFieldSettings } from '../../src/modules/templates/template-records.js';
import {
  formerKeyVersions,
  listTemplateVersions,
  recordTemplateVersion,
} from '../../src/modules/templates/template-version-records.js';

const MIGRATION = '0007_field_settings';

describe.each(DATABASES.filter((d) => d.enabled))('field settings migration ($label)', ({ name }) => {
  it('upgrades a database with templates in it: no settings, no history, then both work', async () => {
    const { config, older, cleanup } = await databaseBefore(name, MIGRATION);
    try {
      await older
        .insertInto('accounts')
        .values({ id: 'acc_m', name: 'm', plan: 'Pro', created_at: '2030-01-01' })
        .execute();
      const analysis = {
        fields: [{ name: 'a', type: 'text', required: false, pdfMeta: { originalName: 'A', page: 1 }, detail: {} }],
        pageCount: 1,
        encrypted: false,
        hasXfa: false,
      };
      await older
        .insertInto('templates')
        .values({
          id: 'tpl_m',
          account_id: 'acc_m',
          name: 'm.pdf',
          description: '',
          file_name: 'm.pdf',
          file_size: 10,
          field_count: 1,
          page_count: 1,
          is_frozen: 0,
          version: 3,
          blob_key: 'templates/acc_m/tpl_m.pdf',
          analysis: JSON.stringify(analysis),
          created_at: '2030-01-01T00:00:00.000Z',
          updated_at: '2030-01-02T00:00:00.000Z',
        })
        .execute();
      await older.destroy();

      const now = await openDatabase(config);
      try {
        const row = await loadTemplate(now, 'acc_m', 'tpl_m');
        expect(row.field_settings).toBe('{}');
        expect(parseFieldSettings(row.field_settings)).toEqual({});
        expect(await listTemplateVersions(now.db, 'acc_m', 'tpl_m')).toEqual([]);

        const at = new Date('2030-02-01T00:00:00.000Z');
        await recordTemplateVersion(now.db, {
          accountId: 'acc_m',
          templateId: 'tpl_m',
          version: 3,
          change: 'earlier',
          fields: [{ name: 'a', originalName: 'A' }],
          at,
        });
        const settings = { A: { name: 'first' } };
        const ok = await saveFieldSettings(now.db, { accountId: 'acc_m', id: 'tpl_m', fromVersion: 3, settings, at });
        expect(ok).toBe(true);
        // the same change again is refused: the template is no longer at version 3
        expect(await saveFieldSettings(now.db, { accountId: 'acc_m', id: 'tpl_m', fromVersion: 3, settings, at })).toBe(
          false,
        );
        const after = await loadTemplate(now, 'acc_m', 'tpl_m');
        expect(after.version).toBe(4);
        expect(parseFieldSettings(after.field_settings)).toEqual(settings);
        expect(await formerKeyVersions(now.db, 'acc_m', 'tpl_m', ['a', 'A', 'zzz'])).toEqual(
          new Map([
            ['a', 3],
            ['A', 3],
          ]),
        );
        expect(await formerKeyVersions(now.db, 'acc_other', 'tpl_m', ['a'])).toEqual(new Map());
      } finally {
        await now.close();
      }
    } finally {
      await cleanup();
    }
  });
});
