// Package tokens counts what text costs a model, in tokens: Estimate is
// the fast figure every budget uses (a turn's context, the capability
// index, the skill index), Count the exact o200k_base count (OpenAI's
// current tokenizer, the one the README's figures use) for reports and
// benchmarks. TestEstimateNearCount pins the two together on real text:
// tool schemas, English prose, code and Japanese. The package imports
// nothing of TinyElf's.
package tokens

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/bits"
	"sync"
	"unicode/utf8"

	tiktoken "github.com/pkoukk/tiktoken-go"
	loader "github.com/pkoukk/tiktoken-go-loader"
)

// Estimate returns about how many tokens s costs a model, without a
// tokenizer and without allocating: ASCII at four characters a token (BPE
// tokenizers' usual figure for English, code and JSON), any other
// character at three quarters of a token (Japanese kana and kanji come out
// at 0.71-0.75 tokens a character under o200k_base). It is within 15% of
// Count on the kinds of text TinyElf sends (TestEstimateNearCount); it is
// safe for concurrent use.
func Estimate(s string) int { return fromCounts(count(s)) }

// count counts the ASCII characters of s and the others (their first
// bytes, 11xxxxxx, and any stray byte past 0x7f that is not a
// continuation), eight bytes at a time: it runs on every turn's whole
// system prompt and tool list.
func count[T string | []byte](s T) (ascii, other int) {
	const high = 0x8080808080808080
	n := len(s)
	i := 0
	for ; i+8 <= n; i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		ascii += 8 - bits.OnesCount64(w&high)
		// Bit 7 and bit 6 set: a leading byte. Shifting left by one
		// puts each byte's bit 6 under its bit 7.
		other += bits.OnesCount64(w & (w << 1) & high)
	}
	for ; i < n; i++ {
		switch c := s[i]; {
		case c < utf8.RuneSelf:
			ascii++
		case c&0xC0 == 0xC0:
			other++
		}
	}
	return ascii, other
}

// EstimateSize estimates text known only by its size in bytes (a file not
// read yet): a quarter of a token a byte, which is Estimate's figure both
// for ASCII and for Japanese (three bytes a character, at three quarters
// of a token).
func EstimateSize(bytes int64) int { return int((bytes + 3) / 4) }

// fromCounts turns counts of ASCII and other characters into tokens.
func fromCounts(ascii, other int) int { return (ascii+3)/4 + (3*other+3)/4 }

// toolOverhead is what the wire format adds to one tool definition around
// its name, description and schema (the function wrapper, its keys).
const toolOverhead = 8

// EstimateTool returns about how many tokens one tool definition costs:
// its name, its description and its schema as a provider sends it
// (compacted: white space outside strings does not count), plus a fixed
// overhead for the wrapper. It reads the schema in place, without
// allocating.
func EstimateTool(name, description string, schema json.RawMessage) int {
	return toolOverhead + Estimate(name) + Estimate(description) + estimateJSON(schema)
}

// estimateJSON is Estimate of b compacted: white space outside strings
// does not count. Malformed JSON is counted the same way, as text.
func estimateJSON(b []byte) int {
	ascii, other := count(b)
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			ascii--
		case '"': // jump to the closing quote, one not escaped
			for {
				j := bytes.IndexByte(b[i+1:], '"')
				if j < 0 {
					return fromCounts(ascii, other)
				}
				i += 1 + j
				backslashes := 0
				for k := i - 1; b[k] == '\\'; k-- {
					backslashes++
				}
				if backslashes%2 == 0 {
					break
				}
			}
		}
	}
	return fromCounts(ascii, other)
}

// o200k is the tokenizer, loaded on Count's first call. Only Count refers
// to the loader, so a binary that never counts links neither the
// tokenizer's tables nor its code (the tables alone are 7 MB).
var o200k struct {
	once sync.Once
	enc  *tiktoken.Tiktoken
	err  error
}

// Count returns the exact number of o200k_base tokens of s (special-token
// text counts as ordinary text). The first call loads the tokenizer's
// tables from the binary (0.2-0.3 s, 46 MB allocated, 22 MB kept), so
// nothing pays for them unless it counts; later calls are fast. It is safe
// for concurrent use.
// It panics if the embedded tables do not load, which only a broken build
// can cause.
func Count(s string) int {
	o200k.once.Do(func() {
		// The offline loader reads the tables embedded in the binary; the
		// library's default loader would download them.
		tiktoken.SetBpeLoader(loader.NewOfflineLoader())
		o200k.enc, o200k.err = tiktoken.GetEncoding(tiktoken.MODEL_O200K_BASE)
	})
	if o200k.err != nil {
		panic(fmt.Sprintf("tokens: load the o200k_base tokenizer: %v", o200k.err))
	}
	return len(o200k.enc.EncodeOrdinary(s))
}
