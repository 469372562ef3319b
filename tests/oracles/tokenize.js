// Oracle for the tokenizer tests (SPEC §1.3): Hugging Face tokenizers 0.23.2 (Rust core, official Node
// binding). Reads JSONL requests on stdin, writes one JSONL answer per request, in order, on stdout.
// Usage: node tokenize.js NODE_MODULES_DIR < requests.jsonl
// Request: {"tokenizer": "/path/tokenizer.json", "text": "..."}           -> {"ids": [...]}
//          {"tokenizer": ..., "b64": "<base64 bytes>"}                       -> ids of the bytes decoded lossily
//                                                                             (Buffer.toString('utf8'): U+FFFD per
//                                                                             maximal invalid subpart)
//          add "op": "pretokenize" -> {"pieces": [...]} (pre_tokenizer only), "op": "normalize" -> {"text": ...}
// Errors answer {"error": "..."} for that request. Requests are grouped per tokenizer and sent through encodeBatch.
'use strict';
const path = require('path');
const readline = require('readline');
const modules = process.argv[2] || path.join(__dirname, '..', '..', 'third_party', 'oracles', 'node_modules');
const { Tokenizer } = require(path.resolve(modules, 'tokenizers'));

async function main() {
  const lines = [];
  const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of rl) if (line.length > 0) lines.push(line);
  const loaded = new Map();
  const load = (p) => {
    if (!loaded.has(p)) {
      try { loaded.set(p, { tk: Tokenizer.fromFile(p) }); } catch (e) { loaded.set(p, { error: String(e) }); }
    }
    return loaded.get(p);
  };
  const answers = new Array(lines.length);
  const groups = new Map();  // tokenizer path -> [{index, text}]
  lines.forEach((line, i) => {
    let req;
    try { req = JSON.parse(line); } catch (e) { answers[i] = { error: 'bad request: ' + e }; return; }
    const text = req.b64 !== undefined ? Buffer.from(req.b64, 'base64').toString('utf8') : req.text;
    const t = load(req.tokenizer);
    if (t.error) { answers[i] = { error: t.error }; return; }
    if (req.op === 'pretokenize') {
      answers[i] = { pieces: t.tk.getPreTokenizer().preTokenizeString(text).map((p) => p[0]) };
    } else if (req.op === 'normalize') {
      const n = t.tk.getNormalizer();
      answers[i] = { text: n ? n.normalizeString(text) : text };
    } else {
      if (!groups.has(req.tokenizer)) groups.set(req.tokenizer, []);
      groups.get(req.tokenizer).push({ index: i, text });
    }
  });
  for (const [p, items] of groups) {
    const tk = loaded.get(p).tk;
    const chunk = 4096;
    for (let s = 0; s < items.length; s += chunk) {
      const part = items.slice(s, s + chunk);
      const encs = await tk.encodeBatch(part.map((x) => x.text), { addSpecialTokens: false });
      part.forEach((x, k) => { answers[x.index] = { ids: Array.from(encs[k].getIds()) }; });
    }
  }
  const out = answers.map((a) => JSON.stringify(a)).join('\n') + (answers.length ? '\n' : '');
  process.stdout.write(out);
}
main().catch((e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
