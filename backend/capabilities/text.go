package capabilities

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Terms splits text into search terms: words split on anything that is not
// a letter or digit (so `_`, `-`, `.`, `/` and spaces), and again at
// camelCase and letter/digit boundaries ("getPRComments" → get, pr,
// comments), lower-cased, stop words dropped, each reduced to a stem.
// Documents and queries go through the same function, so their stems meet.
//
// Text in Chinese or Japanese, which has no spaces, becomes overlapping
// pairs of characters ("ファイル" → ファイ… ファ, ァイ, イル) and each Han
// character alone, the usual way to index CJK text without a dictionary.
func Terms(text string) []string {
	var out []string
	var run []rune // consecutive CJK characters
	flushRun := func() {
		for i, r := range run {
			if unicode.Is(unicode.Han, r) {
				out = append(out, string(r))
			}
			if i+1 < len(run) {
				out = append(out, string(run[i:i+2]))
			}
		}
		run = run[:0]
	}
	for _, w := range splitWords(text) {
		if r, size := utf8.DecodeRuneInString(w); size == len(w) && isCJK(r) {
			run = append(run, r)
			continue
		}
		flushRun()
		w = strings.ToLower(w)
		if stopWords[w] || w == "" {
			continue
		}
		out = append(out, Stem(w))
	}
	flushRun()
	return out
}

// splitWords cuts text at non-alphanumerics and at case and digit changes.
func splitWords(text string) []string {
	var words []string
	runes := []rune(text)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, string(runes[start:end]))
		}
		start = -1
	}
	for i, r := range runes {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := runes[i-1]
		switch {
		case unicode.IsLower(prev) && unicode.IsUpper(r):
			// fooBar → foo | Bar
			flush(i)
			start = i
		case unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
			// PRComments → PR | Comments
			flush(i)
			start = i
		case unicode.IsDigit(prev) != unicode.IsDigit(r) && !isCJK(r) && !isCJK(prev):
			flush(i)
			start = i
		case isCJK(r) || isCJK(prev):
			// CJK text has no spaces: index it by character, which the
			// query side mirrors.
			flush(i)
			start = i
		}
	}
	flush(len(runes))
	return words
}

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// stopWords carry no meaning for finding a capability.
var stopWords = map[string]bool{
	"a": true, "an": true, "the": true, "of": true, "to": true, "in": true, "for": true, "and": true,
	"or": true, "with": true, "on": true, "by": true, "is": true, "it": true, "its": true, "this": true,
	"that": true, "from": true, "as": true, "be": true, "are": true, "at": true, "into": true, "your": true,
	"you": true, "can": true, "will": true, "me": true, "my": true, "i": true, "we": true, "our": true,
	"some": true, "which": true, "what": true, "how": true, "do": true, "does": true, "please": true,
	"want": true, "need": true, "should": true, "would": true, "could": true, "there": true, "these": true,
	"those": true, "them": true, "they": true, "then": true, "than": true, "if": true, "not": true,
	"no": true, "so": true, "up": true, "out": true, "about": true, "use": true, "using": true, "used": true,
	"tool": true, "tools": true, "let": true, "like": true, "just": true, "also": true, "only": true,
	"given": true, "specified": true, "provided": true, "optional": true, "default": true, "e": true, "g": true,
}

// Stem reduces an English word to a crude stem: plurals, -ing, -ed, -er and
// a few derivational endings removed, so "listing", "lists" and "listed"
// meet "list". It is deliberately simple: the same mistakes on both sides of
// a search cancel out.
func Stem(w string) string {
	if utf8.RuneCountInString(w) <= 3 {
		return w
	}
	if s, ok := irregular[w]; ok {
		return dropE(s)
	}
	for _, rule := range stemRules {
		if strings.HasSuffix(w, rule.suffix) && len(w)-len(rule.suffix) >= rule.min {
			w = w[:len(w)-len(rule.suffix)] + rule.repl
			break
		}
	}
	// "running" → "runn" → "run"; "stopped" → "stopp" → "stop".
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && strings.IndexByte("bdgmnprt", w[n-1]) >= 0 {
		w = w[:n-1]
	}
	return dropE(w)
}

// dropE removes a final silent e, so "create", "created" and "creating" all
// become "creat".
func dropE(w string) string {
	if len(w) > 4 && w[len(w)-1] == 'e' && w[len(w)-2] != 'e' {
		return w[:len(w)-1]
	}
	return w
}

var irregular = map[string]string{
	"children": "child", "indices": "index", "indexes": "index", "statuses": "status", "status": "status",
	"aliases": "alias", "analyses": "analysis", "analysis": "analysis", "queries": "query", "copies": "copy",
	"directories": "directory", "entries": "entry", "repositories": "repository", "dependencies": "dependency",
	"policies": "policy", "process": "process", "processes": "process", "access": "access", "address": "address",
	"class": "class", "classes": "class", "branches": "branch", "matches": "match", "patches": "patch",
	"searches": "search", "pushes": "push", "caches": "cache", "diffs": "diff", "files": "file", "uses": "use",
	"news": "news", "series": "series", "always": "always", "was": "was", "has": "has", "does": "does",
	"read": "read", "reads": "read", "reading": "read", "written": "write", "wrote": "write", "writes": "write",
	"writing": "write", "ran": "run", "running": "run", "runs": "run", "made": "make", "making": "make",
	"gets": "get", "getting": "get", "got": "get", "sent": "send", "sending": "send", "sends": "send",
}

var stemRules = []struct {
	suffix, repl string
	min          int
}{
	{"ational", "ate", 3}, {"ization", "ize", 3}, {"fulness", "ful", 3}, {"iveness", "ive", 3},
	{"ations", "ate", 3}, {"ation", "ate", 3}, {"ments", "", 4}, {"ment", "", 4},
	{"ingly", "", 3}, {"ings", "", 3}, {"ing", "", 3}, {"ies", "y", 2}, {"ied", "y", 2},
	{"ers", "", 4}, {"er", "", 4}, {"edly", "", 3}, {"ed", "", 3}, {"ly", "", 4},
	{"sses", "ss", 2}, {"ss", "ss", 2}, {"us", "us", 2}, {"is", "is", 2}, {"es", "e", 3}, {"s", "", 3},
}

// synonyms lets a query word also find the words capabilities are usually
// described with. The groups are ordinary English and developer vocabulary;
// each word expands to the others of its group at a lower weight.
var synonymGroups = [][]string{
	{"pr", "pull request", "merge request"},
	{"repo", "repository", "project"},
	{"dir", "directory", "folder"},
	{"delete", "remove", "erase", "drop", "destroy"},
	{"find", "search", "lookup", "locate", "query", "grep"},
	{"create", "add", "new", "make", "open"},
	{"update", "edit", "modify", "change", "patch", "rename"},
	{"list", "show", "enumerate", "browse", "all"},
	{"get", "fetch", "read", "retrieve", "view", "show", "load", "download", "open"},
	{"run", "execute", "launch", "start", "invoke", "trigger"},
	{"issue", "ticket", "bug"},
	{"comment", "reply", "note"},
	{"message", "chat"},
	{"send", "post", "publish", "notify"},
	{"user", "member", "person", "account", "people"},
	{"ci", "workflow", "action", "pipeline", "build", "check"},
	{"log", "output"},
	{"file", "document"},
	{"content", "text", "body"},
	{"write", "save", "store", "put", "upload"},
	{"tag", "label"},
	{"star", "favorite", "like"},
	{"org", "organization", "team"},
	{"command", "shell", "terminal", "bash"},
	{"notification", "alert", "notice"},
	{"web", "internet", "online", "url", "http", "website", "page"},
	{"image", "picture", "photo", "screenshot"},
	{"size", "metadata", "info", "stat", "detail"},
	{"vulnerability", "security", "alert", "cve", "advisory"},
	{"secret", "credential", "token", "key"},
	{"release", "version"},
	{"review", "approve"},
	{"close", "resolve", "finish"},
	{"move", "rename", "transfer"},
	{"sum", "add", "calculate", "compute"},
	{"wait", "sleep", "delay", "pause"},
	{"env", "environment", "variable"},
	{"diff", "difference", "change", "compare"},
	{"assign", "assignee", "owner"},
	{"gist", "snippet", "paste"},
	{"discussion", "forum", "thread"},
	{"skill", "guide", "method", "checklist", "instruction"},
}

// synonymIndex maps a stem to the stems of its groups.
var synonymIndex = buildSynonyms()

func buildSynonyms() map[string][]string {
	idx := map[string][]string{}
	for _, g := range synonymGroups {
		var stems [][]string
		for _, w := range g {
			stems = append(stems, Terms(w))
		}
		for i, si := range stems {
			if len(si) != 1 {
				continue // a phrase expands from its words, not to them
			}
			for j, sj := range stems {
				if i == j {
					continue
				}
				for _, t := range sj {
					if t != si[0] && !contains(idx[si[0]], t) {
						idx[si[0]] = append(idx[si[0]], t)
					}
				}
			}
		}
	}
	return idx
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
