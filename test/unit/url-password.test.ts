import { describe, expect, it } from 'vitest';
import { maskDatabaseUrlSetting } from '../../src/config/database.js';
import { maskUrlCredentials } from '../../src/config/load.js';
import { maskQueueUrl } from '../../src/config/queue.js';
import { maskPasswordParameters, maskUrlPassword, urlSecrets } from '../../src/config/url-password.js';
import { urlSecretsOf } from '../../src/service/app.js';

describe('a URL password, in its user info or its query', () => {
  it.each([
    ['postgres://u:s3cret@db:5432/g', 'postgres://u:***@db:5432/g'],
    ['postgres://u@db/g?password=s3cret', 'postgres://u@db/g?password=***'],
    [
      'postgres://u@db/g?sslmode=verify-full&sslpassword=k3y&x=1',
      'postgres://u@db/g?sslmode=verify-full&sslpassword=***&x=1',
    ],
    ['postgres://u@db/g?PASSWORD=s3cret', 'postgres://u@db/g?PASSWORD=***'],
    ['postgres://u@db/g?pass%77ord=s3cret', 'postgres://u@db/g?pass%77ord=***'],
    ['redis://h:6379/0?sentinelPassword=s3cret', 'redis://h:6379/0?sentinelPassword=***'],
    ['postgres://u@db/g?passfile=/run/pgpass', 'postgres://u@db/g?passfile=/run/pgpass'],
    ['postgres://u@db/g?options=-c%20search_path%3Dx', 'postgres://u@db/g?options=-c%20search_path%3Dx'],
  ])('%s is printed %s', (url, masked) => {
    expect(maskUrlPassword(url)).toBe(masked);
  });

  it('is masked in text that is no URL, by every printer', () => {
    const bad = 'postgres://u@db:notaport/g?password=s3cret&sslpassword=k3y';
    for (const print of [maskDatabaseUrlSetting, maskQueueUrl, maskUrlCredentials, maskPasswordParameters]) {
      const shown = print(bad);
      expect(shown).not.toContain('s3cret');
      expect(shown).not.toContain('k3y');
    }
    expect(maskPasswordParameters('connect to postgres://db/g?password=s3cret failed')).toBe(
      'connect to postgres://db/g?password=*** failed',
    );
  });

  it('is on the scrub list, decoded and as written', () => {
    expect(urlSecrets('postgres://u:p%40ss@db/g?password=a%2Bb&sslpassword=k+y')).toEqual([
      'p%40ss',
      'p@ss',
      'a%2Bb',
      'a+b',
      'k+y',
      'k y',
    ]);
    expect(
      urlSecretsOf({
        database: { kind: 'postgres', url: 'postgres://db/g?password=one', poolSize: 1 },
        queue: { kind: 'postgres', url: 'postgres://db/q?password=two', schema: 'q', setting: 'QUEUE_URL' },
        redisUrl: 'redis://127.0.0.1:6379?password=three',
      }),
    ).toEqual(['one', 'two', 'three']);
  });
});
