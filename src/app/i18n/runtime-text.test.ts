import { afterEach, describe, expect, it, vi } from 'vitest';
import { chooseBackend, NO_ADAPTER } from '../../runtime/backend.ts';
import { BusyError, ERROR_CODES, INPUT_REASONS, InputError, IntegrityError, NetworkError, SignatureError, ValidationError } from '../../runtime/errors.ts';
import { hi } from './hi.ts';
import { setLanguage } from './index.ts';
import { catalogErrorText } from './models-text.ts';
import { backendReasonText, errorText, fallbackText, noteText } from './runtime-text.ts';

const DEVANAGARI = /[\u0900-\u097F]/;

describe('runtime messages in every UI language', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    return setLanguage('en');
  });

  it('has a Hindi sentence for every error code, input reason, backend reason, adapter problem and note kind', async () => {
    // That each has a key at all is a type error otherwise (runtime-text.ts); here, that Hindi words it.
    await setLanguage('hi');
    for (const code of ERROR_CODES) expect(errorText(Object.assign(new Error(), { code })), code).toMatch(DEVANAGARI);
    for (const reason of INPUT_REASONS) expect(errorText(new InputError('', { reason })), reason).toMatch(DEVANAGARI);
    const kinds = Object.entries(hi).filter(([key]) => /^(backend|adapter|note)\./.test(key));
    expect(kinds.length).toBeGreaterThanOrEqual(17);
    // Hindi sentences are written in Devanagari (a note that is only a placeholder excepted).
    for (const [key, hindi] of kinds) if (hindi !== '{reason}') expect(hindi, key).toMatch(DEVANAGARI);
  });

  it('says a fallback answered because the primary failed its integrity check, not merely that it could not answer', async () => {
    const integrity = fallbackText({ requested: 'spam-main', code: 'INTEGRITY' }, 'spam-lite');
    expect(integrity).toContain('spam-main failed its integrity check');
    expect(integrity).toContain('spam-lite answered instead');
    expect(fallbackText({ requested: 'spam-main', code: 'MODEL_LOAD' }, 'spam-lite')).toBe('spam-main could not answer; its fallback spam-lite answered instead.');
    await setLanguage('hi');
    expect(fallbackText({ requested: 'spam-main', code: 'INTEGRITY' }, 'spam-lite')).toMatch(/अखंडता/);
  });

  it('words an error by its input reason and details, never by its English message', async () => {
    const error = new InputError('The file is too large (60 MB; the limit is 50 MB).', { reason: 'file-too-large', mb: 60, limitMb: 50 });
    expect(errorText(error)).toBe('The file is too large (60 MB; the limit is 50 MB).');
    await setLanguage('hi');
    const hindi = errorText(error);
    expect(hindi).toBe('फ़ाइल बहुत बड़ी है (60 MB; सीमा 50 MB है)।');
    expect(errorText(new BusyError('Lantern is busy (9 requests waiting); try again shortly.'))).toBe(hi['error.BUSY']);
    expect(errorText(new IntegrityError('Chunk 2 of model.onnx does not match.'))).toMatch(DEVANAGARI);
    // Errors from outside Lantern (and unknown codes) get the generic sentence.
    expect(errorText(new TypeError('x is undefined'))).toBe(hi['error.INTERNAL']);
  });

  it('words the backend reason and fallback notes with their parameters', async () => {
    await setLanguage('hi');
    const reason = chooseBackend('auto', { adapter: { ...NO_ADAPTER, unavailableReason: { kind: 'null-adapter' } }, crossOriginIsolated: true, hardwareConcurrency: 2 }).reason;
    expect(backendReasonText(reason)).toBe('कोई WebGPU एडैप्टर नहीं (ब्राउज़र ने कोई एडैप्टर नहीं दिया); WASM इस्तेमाल हो रहा है।');
    expect(noteText({ kind: 'backend-fallback', reason: { kind: 'device-lost', detail: 'destroyed' } })).toBe('WebGPU डिवाइस खो गया; WASM इस्तेमाल हो रहा है।');
    await setLanguage('en');
    expect(backendReasonText({ kind: 'software-adapter', adapter: 'google swiftshader' })).toBe('Only a software WebGPU adapter (google swiftshader), slower than WASM; using WASM.');
    expect(noteText({ kind: 'downscaled', width: 8000, height: 6000, toWidth: 2048, toHeight: 1536 })).toBe('Downscaled from 8000×6000 to 2048×1536 before classifying.');
    expect(noteText({ kind: 'truncated', maxTokens: 128 })).toBe('The text was truncated to the model\'s 128 tokens.');
  });

  it('words a catalog that could not be read from its details: a refused origin, an HTTP status, no connection, expiry', async () => {
    await setLanguage('hi');
    // The store's own errors, as src/runtime/store/net.ts and catalog.ts raise them.
    const refused = new NetworkError('This address is not an allowed model source; add its origin to the registry configuration.', { origin: 'https://models.example.org' });
    const missing = new NetworkError('The model catalog could not be fetched (HTTP 404).', { status: 404, retryable: false });
    const offline = new NetworkError('The model catalog could not be fetched: the device may be offline.', { retryable: true });
    const expired = new ValidationError('The model catalog expired on 2025-01-31; updates are paused until the publisher signs a fresh one. Installed models keep working.', { expiresAt: '2025-01-31T00:00:00Z' });
    expect(catalogErrorText(refused)).toBe('https://models.example.org ऐसा मॉडल स्रोत नहीं है जिसकी यह डिप्लॉयमेंट अनुमति देता है; कैटलॉग नहीं लाया गया।');
    expect(catalogErrorText(missing)).toBe('कैटलॉग नहीं लाया जा सका: सर्वर ने त्रुटि लौटाई (HTTP 404)। पता जाँचें।');
    // No answer: offline says so; online, the server may have refused this app, which "offline" would hide.
    vi.stubGlobal('navigator', { onLine: false });
    expect(catalogErrorText(offline)).toBe(hi['models.catalogError.unreachable']);
    vi.stubGlobal('navigator', { onLine: true });
    expect(catalogErrorText(offline)).toBe(hi['models.catalogError.refused']);
    // A stall is a connection too slow, whatever navigator says.
    expect(catalogErrorText(new NetworkError('No data arrived for 30 s while fetching the model catalog; try again to resume.', { stalled: true, retryable: true }))).toBe(hi['models.catalogError.unreachable']);
    expect(catalogErrorText(expired)).toContain('2025-01-31');
    // Other failures (an untrusted signer, say) are worded by their code.
    expect(catalogErrorText(new SignatureError('Key k1 (Acme) is not trusted to sign spam-filter; it was refused.'))).toBe(hi['error.SIGNATURE']);
    for (const error of [refused, missing, offline, expired]) expect(catalogErrorText(error), error.message).toMatch(DEVANAGARI);
  });
});
