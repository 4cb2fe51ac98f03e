import { afterEach, describe, expect, it } from 'vitest';
import { BusyError, TimeoutError, ValidationError } from '../../runtime/errors.ts';
import { enModels } from './en-models.ts';
import { hi } from './hi.ts';
import { addEnglish, setLanguage } from './index.ts';
import { modelsActionText, storeReasonText } from './models-text.ts';
import { REASONS } from '../../runtime/store/reason-catalog.ts';

describe('Models screen action errors', () => {
  afterEach(() => setLanguage('en'));

  it('say why a shadow install was refused for other labels, and that Update still installs it, in each language', async () => {
    addEnglish(enModels);
    const refused = new ValidationError('demo 1.1.0 cannot be tried in shadow: …', { reason: 'shadow-labels', id: 'demo', version: '1.1.0', active: '1.0.0' });
    expect(modelsActionText(refused)).toBe('demo 1.1.0 cannot be tried in shadow: its labels differ from those of version 1.0.0, so their answers cannot be compared. Use Update to install it.');
    await setLanguage('hi');
    expect(modelsActionText(refused)).toContain('1.0.0');
    expect(modelsActionText(refused)).toMatch(/शैडो/);
  });

  it('say that a golden set past its deadline left the release unactivated and runs again, in each language', async () => {
    addEnglish(enModels);
    const late = new TimeoutError('The golden set of demo 1.1.0 did not finish within 60 s; …', { reason: 'gate-timeout', id: 'demo', version: '1.1.0' });
    expect(modelsActionText(late)).toBe('The checks of demo 1.1.0 did not finish in time (the device may be busy); it was not activated. They run again when you retry, or at the next update check.');
    await setLanguage('hi');
    expect(modelsActionText(late)).toContain('demo 1.1.0');
    expect(modelsActionText(late)).not.toBe(hi['error.TIMEOUT']);
  });

  it('word any other error as the runtime\'s text does', async () => {
    addEnglish(enModels);
    expect(modelsActionText(new BusyError('busy'))).toBe('Lantern is busy; try again in a moment.');
    expect(modelsActionText(new ValidationError('gate failed'))).toBe('The model release did not pass its checks; it was not activated.');
    await setLanguage('hi');
    expect(modelsActionText(new BusyError('busy'))).toBe(hi['error.BUSY']);
  });
});

describe('reasons the store recorded', () => {
  afterEach(() => setLanguage('en'));

  it('are shown in the user\'s language with their figures; a publisher\'s own words as they are', async () => {
    addEnglish(enModels);
    const failing = 'rolled back automatically: 3 of its last 5 requests failed';
    expect(storeReasonText(failing)).toBe(failing);
    expect(storeReasonText(REASONS.revoked)).toBe(REASONS.revoked);
    await setLanguage('hi');
    expect(storeReasonText(failing)).toBe('अपने-आप वापस लिया गया: पिछले 5 अनुरोधों में से 3 विफल रहे');
    expect(storeReasonText(REASONS.revoked)).toBe(hi['models.reason.revoked']);
    expect(storeReasonText('flags invoices as spam')).toBe('flags invoices as spam');
  });
});
