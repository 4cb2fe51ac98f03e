import fc from 'fast-check';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/runtime/errors.ts';
import { sequenceFromVersion } from './sequence.ts';

const pre = fc.oneof(
  fc.constant(''),
  fc.constantFrom('alpha', 'beta', 'rc').map((t) => `-${t}`),
  fc.tuple(fc.constantFrom('alpha', 'beta', 'rc'), fc.integer({ min: 0, max: 98 })).map(([t, n]) => `-${t}.${n}`),
);
const version = fc.tuple(fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 9999 }), pre)
  .map(([a, b, c, p]) => `${a}.${b}.${c}${p}`);

describe('sequenceFromVersion', () => {
  it('orders exactly as semver precedence does, within safe integers', () => {
    fc.assert(fc.property(version, version, (a, b) => {
      const [x, y] = [sequenceFromVersion(a), sequenceFromVersion(b)];
      expect(Number.isSafeInteger(x) && Number.isSafeInteger(y)).toBe(true);
      expect(Math.sign(x - y)).toBe(semver.compare(a, b));
    }), { numRuns: 2000 });
  });

  it('puts pre-releases before their release and does not overflow at 1000', () => {
    expect(sequenceFromVersion('2.0.0-rc.1')).toBeLessThan(sequenceFromVersion('2.0.0'));
    expect(sequenceFromVersion('2.0.0-alpha')).toBeLessThan(sequenceFromVersion('2.0.0-alpha.0'));
    expect(sequenceFromVersion('1.0.1001')).toBeLessThan(sequenceFromVersion('1.1.0'));
    expect(sequenceFromVersion('1.999.0')).toBeLessThan(sequenceFromVersion('2.0.0'));
  });

  it.each(['1.0.0+build.5', '1.0.0-preview', '1.0.0-rc.1.2', '1.0.0-rc.99', '1000.0.0', '1.10000.0', 'v1.0.0', '1.0'])('refuses %s, which it cannot order', (v) => {
    expect(() => sequenceFromVersion(v)).toThrow(ValidationError);
  });
});
