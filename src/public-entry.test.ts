import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The PWA is the runtime's first embedder: it may import the runtime only through the entries
 * the package exports (package.json `exports`), never a module behind them. A deep import here
 * would be an API the package does not offer.
 */
const ROOT = join(import.meta.dirname, '..');

interface Exports { [entry: string]: string | { types: string; default: string } }
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Exports; files: string[] };

/** Source file of each exported entry, from the path of its declarations. */
const entrySources = Object.values(pkg.exports).flatMap((target) => (typeof target === 'string' ? [] : [target.types.replace(/^\.\/dist-lib\/types\//, '').replace(/\.d\.ts$/, '.ts')]));

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** Runtime modules a file imports (relative specifiers resolving into src/runtime or workers). */
function runtimeImports(file: string): string[] {
  const code = readFileSync(join(ROOT, file), 'utf8');
  // Static imports and re-exports, side-effect imports, and dynamic import() of a literal path.
  const specifiers = [...code.matchAll(/(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2]!);
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)))
    .filter((p) => p.startsWith('src/runtime/') || p.startsWith('workers/'));
}

describe('public entry', () => {
  it('every exported entry exists as a source module', () => {
    expect(entrySources).toContain('src/runtime/index.ts');
    expect(entrySources).toContain('workers/inference.worker.ts');
    for (const source of entrySources) expect(() => readFileSync(join(ROOT, source))).not.toThrow();
  });

  it('the PWA imports the runtime only through the package entries', () => {
    const files = [...sourceFiles('src/app'), 'src/main.tsx'];
    const deep = files.flatMap((file) => runtimeImports(file).filter((p) => !entrySources.includes(p)).map((p) => `${file} -> ${p}`));
    expect(deep).toEqual([]);
    // The check can fail: it sees the app's imports of the entries themselves.
    expect(files.flatMap(runtimeImports)).toContain('src/runtime/index.ts');
  });

  it('the package\'s declarations add nothing to a consumer\'s global scope', () => {
    // A .d.ts without import or export is a script: its declarations become globals in every
    // project that imports the package (src/trusted-types.ts once leaked `factory` that way).
    const out = mkdtempSync(join(tmpdir(), 'lantern-types-'));
    try {
      execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.lib.json'), '--outDir', out], { stdio: 'pipe' });
      const declarations = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? declarations(join(dir, e.name)) : e.name.endsWith('.d.ts') ? [join(dir, e.name)] : []));
      const files = declarations(out);
      expect(files.map((f) => relative(out, f))).toContain('src/trusted-types.d.ts');
      const scripts = files.filter((f) => !/^(?:export|import)\b/m.test(readFileSync(f, 'utf8'))).map((f) => relative(out, f));
      const globals = files.filter((f) => /^declare global\b/m.test(readFileSync(f, 'utf8'))).map((f) => relative(out, f));
      expect({ scripts, globals }).toEqual({ scripts: [], globals: [] });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
