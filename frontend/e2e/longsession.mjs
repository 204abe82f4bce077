// A long session for the browser tests and the UI benchmarks: a JSON export
// (backend/sessions/export.go) that `tinyelf sessions import` reads, of
// turns of a user message and a Markdown answer (a code block every 4th
// answer, a list every 3rd, a table every 10th, so that the list is not all
// plain text).

/** answerText is the i-th assistant answer: a few paragraphs of Markdown. */
export function answerText(i) {
  const parts = [
    `Answer ${i}: the parser indexes the first token without checking the length, so an empty input panics. ` +
      'The fix is a guard before the index, and a test for the empty case. '.repeat(2),
  ];
  if (i % 3 === 0) {
    parts.push('- read `parser.go`\n- add the guard\n- run `go test ./...`');
  }
  if (i % 4 === 0) {
    parts.push(
      '```go\nfunc parse(tokens []Token) (*Node, error) {\n\tif len(tokens) == 0 {\n\t\treturn nil, ErrEmpty\n\t}\n\treturn parseExpr(tokens)\n}\n```',
    );
  }
  if (i % 10 === 0) {
    parts.push('| file | change |\n| --- | --- |\n| parser.go | guard |\n| parser_test.go | empty case |');
  }
  parts.push('Tell me if you want me to look at the lexer as well.');
  return parts.join('\n\n');
}

/** questionText is the i-th user message; "Question 1:" begins the first. */
export function questionText(i) {
  return `Question ${i}: why do the tests fail on empty input in parser.go? Please look and explain.`;
}

/**
 * longSessionExport is the export of a session titled title in workspace,
 * of messages messages (messages/2 turns, each with its usage). The last
 * answer ends with endMarker; answers named in extra (turn number → text)
 * get that text added, for a search to find.
 */
export function longSessionExport({ messages, title, workspace, endMarker, extra = {} }) {
  const t0 = Date.parse('2026-11-01T09:00:00Z');
  const events = [];
  const add = (type, data) => events.push({ seq: events.length + 1, type, time: new Date(t0 + events.length * 1000).toISOString(), data });
  add('session.created', { title, workspace, mode: 'default', provider: 'Fake model', model: 'test-model' });
  const turns = Math.ceil(messages / 2);
  for (let i = 1; i <= turns; i++) {
    add('turn.start', { mode: 'default' });
    add('user.message', { text: questionText(i) });
    const usage = { model: 'test-model', inputTokens: 1200 + i, outputTokens: 300 };
    let text = answerText(i);
    if (extra[i]) {
      text += `\n\n${extra[i]}`;
    }
    if (i === turns) {
      text += `\n\n${endMarker}`;
    }
    add('assistant.message', { text, model: 'test-model', stopReason: 'end_turn', usage });
    add('usage', usage);
    add('turn.end', { reason: 'done', iterations: 1 });
  }
  return { format: 'tinyelf.session', version: 2, session: { id: '', title }, events };
}
