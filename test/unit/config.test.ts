import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { resolvePlans } from '../../src/plans.js';

describe('configuration', () => {
  it('defaults to port 3000 and a SQLite file in ./data', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.database.kind).toBe('sqlite');
    expect(c.publicUrl).toBe('http://localhost:3000');
  });

  it('chooses PostgreSQL for a postgres:// DATABASE_URL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@h/db' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@h/db',
    });
  });

  it('refuses bad variables, naming each one at once', () => {
    try {
      loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x', PUBLIC_URL: 'ftp://x' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const msg = (err as Error).message;
      for (const name of ['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'PUBLIC_URL']) expect(msg).toContain(name);
    }
  });

  it('defaults renders to fr-FR / Europe/Paris; DEFAULT_LOCALE and DEFAULT_TIMEZONE change that, checked', () => {
    expect(loadConfig({}).renderDefaults).toEqual({ locale: 'fr-FR', timezone: 'Europe/Paris' });
    expect(loadConfig({ DEFAULT_LOCALE: 'en-GB', DEFAULT_TIMEZONE: 'UTC' }).renderDefaults).toEqual({
      locale: 'en-GB',
      timezone: 'UTC',
    });
    expect(() => loadConfig({ DEFAULT_LOCALE: 'xx-!!', DEFAULT_TIMEZONE: 'Mars/Base' })).toThrow(
      /DEFAULT_LOCALE[\s\S]*DEFAULT_TIMEZONE/,
    );
  });

  it('leaves tracing off unless OTEL_ENABLED=true, named formcast unless OTEL_SERVICE_NAME says otherwise', () => {
    expect(loadConfig({}).tracing).toEqual({ enabled: false, serviceName: 'formcast' });
    expect(loadConfig({ OTEL_ENABLED: 'true', OTEL_SERVICE_NAME: 'forms-eu' }).tracing).toEqual({
      enabled: true,
      serviceName: 'forms-eu',
    });
    expect(() => loadConfig({ OTEL_ENABLED: 'yes' })).toThrow(/OTEL_ENABLED must be true or false/);
  });

  it("sizes the render workers' young generation, 16 MB by default", () => {
    expect(loadConfig({}).limits.renderSemiSpaceMb).toBe(16);
    expect(loadConfig({ RENDER_SEMI_SPACE_MB: '2' }).limits.renderSemiSpaceMb).toBe(2);
    expect(() => loadConfig({ RENDER_SEMI_SPACE_MB: '0' })).toThrow(/RENDER_SEMI_SPACE_MB/);
  });

  it('sizes the caches from the environment, the template cache a quarter of a worker by default', () => {
    expect(loadConfig({}).caches).toMatchObject({
      templateEntries: 32,
      templateMb: 128,
      templateFilesMb: 16,
      baseFilesMb: 16,
      analysisEntries: 256,
    });
    expect(loadConfig({ RENDER_MEMORY_MB: '1024' }).caches.templateMb).toBe(256);
    const c = loadConfig({
      TEMPLATE_CACHE_ENTRIES: '0',
      TEMPLATE_CACHE_MB: '64',
      TEMPLATE_FILE_CACHE_MB: '0',
      BASE_FILE_CACHE_MB: '8',
    });
    expect(c.caches).toMatchObject({ templateEntries: 0, templateMb: 64, templateFilesMb: 0, baseFilesMb: 8 });
    expect(() => loadConfig({ ANALYSIS_CACHE_ENTRIES: '-1' })).toThrow(/ANALYSIS_CACHE_ENTRIES/);
  });

  it('merges plan overrides and refuses unknown plans or settings', () => {
    expect(resolvePlans({ Free: { rendersPerMonth: 3 } }).Free.rendersPerMonth).toBe(3);
    expect(resolvePlans({ Free: { rendersPerMonth: 3 } }).Free.templates).toBe(5);
    expect(() => resolvePlans({ Gold: {} })).toThrow(/Gold/);
    expect(() => resolvePlans({ Free: { renders: 3 } })).toThrow(/renders/);
    expect(() => resolvePlans({ Free: { watermark: 'yes' } })).toThrow(/watermark/);
  });
});
