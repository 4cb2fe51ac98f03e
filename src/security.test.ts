import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, securityHeaders } from '../scripts/headers.mjs';

/** Hardening checks on our own shipped code (src/, workers/) and on the headers we serve. */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}
const SHIPPED = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'workers'))];
/** Comments may discuss eval; code may not use it. */
const code = (path: string): string => readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

function offenders(pattern: RegExp): string[] {
  return SHIPPED.flatMap((path) => code(path).split('\n').flatMap((line, i) => (pattern.test(line) ? [`${relative(ROOT, path)}:${i + 1}`] : [])));
}

describe('shipped source', () => {
  it('is found (the checks below would pass vacuously otherwise)', () => {
    expect(SHIPPED.length).toBeGreaterThan(30);
    expect(SHIPPED.some((p) => p.endsWith('workers/inference.worker.ts'))).toBe(true);
  });

  it('has no eval, new Function or string timers', () => {
    expect(offenders(/(^|[^.\w-])eval\s*\(/)).toEqual([]);
    expect(offenders(/\bnew\s+Function\s*\(|(^|[^.\w])Function\s*\(\s*['"`]/)).toEqual([]);
    expect(offenders(/\bset(Timeout|Interval)\s*\(\s*['"`]/)).toEqual([]);
  });

  it('never logs to the console (inputs could leak into logs and crash reports)', () => {
    expect(offenders(/\bconsole\s*\.\s*\w+\s*\(/)).toEqual([]);
  });

  it('the pattern checks do catch offenders', () => {
    expect(/(^|[^.\w-])eval\s*\(/.test("const x = eval('1')")).toBe(true);
    expect(/(^|[^.\w-])eval\s*\(/.test("'wasm-unsafe-eval'")).toBe(false);
    expect(/\bconsole\s*\.\s*\w+\s*\(/.test('console.log(text)')).toBe(true);
  });
});

describe('production headers', () => {
  const csp = contentSecurityPolicy({ dev: false, connectSrc: ['https://models.example'] });
  const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));

  it('allow scripts only from our origin plus WebAssembly compilation', () => {
    expect(directives.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(directives.get('worker-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(csp).not.toMatch(/'unsafe-inline'|'unsafe-eval'|\*/);
  });

  it('let the page fetch only from itself and the configured model origins', () => {
    expect(directives.get('connect-src')).toEqual(["'self'", 'https://models.example']);
  });

  it('accept plain-http model origins only on loopback', () => {
    const connect = (origin: string) => contentSecurityPolicy({ dev: false, connectSrc: [origin] });
    expect(connect('http://127.0.0.1:8787')).toContain('connect-src \'self\' http://127.0.0.1:8787;');
    expect(connect('http://localhost:8787/catalog.json')).toContain('connect-src \'self\' http://localhost:8787;');
    for (const insecure of ['http://models.example', 'http://192.168.1.10:8787', 'ws://models.example']) expect(() => connect(insecure), insecure).toThrow(/not an acceptable model origin/);
  });

  it('require Trusted Types for script sinks, made only by the default policy', () => {
    expect(directives.get('require-trusted-types-for')).toEqual(["'script'"]);
    expect(directives.get('trusted-types')).toEqual(['default']);
  });

  it('isolate the page and forbid framing', () => {
    const headers = securityHeaders({ dev: false });
    expect(headers).toMatchObject({ 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp', 'X-Content-Type-Options': 'nosniff' });
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
  });
});
