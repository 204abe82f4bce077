package tools

import (
	"fmt"
	"strings"
)

// MetaUntrusted is the Result.Meta key of a result whose content came from
// outside TinyElf and reached the model marked as untrusted (a web page,
// search results, an MCP server's output). Its value is a short phrase
// saying where the content came from ("MCP server github"), which the tool
// card shows beside the marker.
const MetaUntrusted = "untrusted"

// UntrustedBlock wraps text the model reads in a block <tag attrs…
// trust="untrusted"> whose first line is intro — where the text came from
// and that it may contain instructions the model must not follow — so the
// warning comes before the content and survives a cut at its end. attrs
// are name, value pairs, quoted as Go strings. A closing tag inside text
// is defused, so the text cannot end the block early and pose as
// TinyElf's own words.
func UntrustedBlock(tag string, attrs []string, intro, text string) string {
	var b strings.Builder
	b.WriteString("<" + tag)
	for i := 0; i+1 < len(attrs); i += 2 {
		fmt.Fprintf(&b, " %s=%q", attrs[i], attrs[i+1])
	}
	b.WriteString(" trust=\"untrusted\">\n")
	b.WriteString(intro)
	b.WriteString("\n\n")
	b.WriteString(defuseTag(text, tag))
	b.WriteString("\n</" + tag + ">")
	return b.String()
}

// defuseTag keeps text from opening or closing a block named tag (an
// ASCII name), in any letter case: "</tag" becomes "<\/tag" and "<tag"
// becomes "<\tag".
func defuseTag(text, tag string) string {
	has := func(i int, s string) bool {
		return i+len(s) <= len(text) && strings.EqualFold(text[i:i+len(s)], s)
	}
	var b strings.Builder
	last := 0
	for i := strings.IndexByte(text, '<'); i >= 0; {
		switch {
		case has(i+1, "/"+tag):
			b.WriteString(text[last:i] + `<\/`)
			last = i + 2
		case has(i+1, tag):
			b.WriteString(text[last:i] + `<\`)
			last = i + 1
		}
		next := strings.IndexByte(text[i+1:], '<')
		if next < 0 {
			break
		}
		i += 1 + next
	}
	if last == 0 {
		return text
	}
	return b.String() + text[last:]
}
