package engine

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"tinyelf/backend/llm"
	"tinyelf/backend/sessions"
	"tinyelf/backend/tools"
)

// TitleSystemPrompt is the system prompt of the call that names a session.
// Tests route the fake model's answer to it by this text.
const TitleSystemPrompt = "You name chat sessions. Reply with a short title (at most six words) for the conversation " +
	"below, in the language the user wrote in: plain text on one line, without quotes, a trailing period or any " +
	"other words."

// promptTag matches a line that is only one of the prompt's tags.
var promptTag = regexp.MustCompile(`^</?(user|assistant)>$`)

// titleTimeout bounds the call that names a session; a slow background
// model only means the session keeps its first-line title.
const titleTimeout = 45 * time.Second

// titleMaxTokens bounds the title the model writes.
const titleMaxTokens = 40

// titleExcerpt is how much of the first message and answer the model is
// shown, in bytes.
const titleExcerpt = 2000

// titleWorthy reports whether the turn that just answered should name its
// session: it is the session's first answer (a first turn that failed
// before answering does not count), the session has no title of the
// user's or a model's yet, and it is no branch (a branch goes by its
// conversation's title).
func (t *turn) titleWorthy(answer string) bool {
	return t.e.opts.Titles && t.info.Messages <= 1 && !t.info.Titled && !t.info.Branch &&
		strings.TrimSpace(answer) != "" && strings.TrimSpace(t.userText) != ""
}

// nameSession asks the agent's background model (or the session's own) for
// a title in the background, owned by the engine: Shutdown cancels it and
// waits. The title is logged as session.titled; a failure leaves the
// first-line title, and is not worth telling the user about.
func (e *Engine) nameSession(t *turn, answer string) {
	e.bgMu.Lock()
	defer e.bgMu.Unlock()
	if e.bgCtx.Err() != nil {
		return // shutting down
	}
	e.bgWork.Add(1)
	go func() {
		defer e.bgWork.Done()
		ctx, cancel := context.WithTimeout(e.bgCtx, titleTimeout)
		defer cancel()
		title, name, model, usage, err := e.writeTitle(ctx, t, answer)
		if usage != (llm.Usage{}) {
			e.recordBackgroundUsage(ctx, t, model, usage)
		}
		if err != nil || title == "" {
			return
		}
		_ = e.record(ctx, t.s.id, sessions.NewEvent(sessions.EventSessionTitled, sessions.SessionTitled{Title: title, Model: name + "/" + model}))
	}()
}

// writeTitle makes the call that names a session and returns the cleaned
// title, the provider and model that wrote it and what the call cost.
func (e *Engine) writeTitle(ctx context.Context, t *turn, answer string) (title, name, model string, usage llm.Usage, err error) {
	prov, name, model, err := e.backgroundModel(t)
	if err != nil {
		return "", "", "", llm.Usage{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<user>\n%s\n</user>\n\n<assistant>\n%s\n</assistant>",
		tools.CutUTF8(t.userText, titleExcerpt), tools.CutUTF8(answer, titleExcerpt))
	resp, err := prov.Stream(ctx, llm.Request{
		Model: model, System: TitleSystemPrompt, MaxTokens: titleMaxTokens,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: b.String()}},
	}, nil)
	if resp != nil {
		usage = resp.Usage
	}
	if err != nil {
		return "", name, model, usage, fmt.Errorf("the title model %s/%s failed: %w", name, model, err)
	}
	return CleanTitle(resp.Text), name, model, usage, nil
}

// CleanTitle turns what a model wrote as a title into one line for the
// session list: the first non-blank line without Markdown marks, a
// "Title:" label, surrounding quotes or a trailing period, spaces
// collapsed, cut to sessions.AutoTitleLen characters. It returns "" when
// nothing is left.
func CleanTitle(s string) string {
	line := ""
	for l := range strings.Lines(s) {
		// A model that repeats the prompt starts with its <user> tag: the
		// tags are not a title.
		if l = strings.TrimSpace(l); l != "" && !promptTag.MatchString(l) {
			line = l
			break
		}
	}
	line = strings.TrimLeft(line, "#*_>`- ")
	for _, label := range []string{"Title:", "title:", "TITLE:", "タイトル:", "タイトル："} {
		line = strings.TrimPrefix(line, label)
	}
	line = strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")
	for {
		trimmed := strings.TrimSpace(strings.TrimRight(strings.Trim(line, "\"'“”‘’「」『』*_`"), ".。"))
		if trimmed == line {
			break
		}
		line = trimmed
	}
	if r := []rune(line); len(r) > sessions.AutoTitleLen {
		line = strings.TrimSpace(string(r[:sessions.AutoTitleLen])) + "…"
	}
	return line
}
