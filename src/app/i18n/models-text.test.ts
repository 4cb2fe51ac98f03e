import { afterEach, describe, expect, it } from 'vitest';
import { BusyError, ValidationError } from '../../runtime/errors.ts';
import { enModels } from './en-models.ts';
import { hi } from './hi.ts';
import { addEnglish, setLanguage } from './index.ts';
import { modelsActionText } from './models-text.ts';

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

  it('word any other error as the runtime\'s text does', async () => {
    addEnglish(enModels);
    expect(modelsActionText(new BusyError('busy'))).toBe('Lantern is busy; try again in a moment.');
    expect(modelsActionText(new ValidationError('gate failed'))).toBe('The model release did not pass its checks; it was not activated.');
    await setLanguage('hi');
    expect(modelsActionText(new BusyError('busy'))).toBe(hi['error.BUSY']);
  });
});
