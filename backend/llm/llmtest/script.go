package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"
)

// Script is a conversation for a server started outside of `go test` (the
// fakellm command). Its JSON form is either a bare array of turns or
//
//	{"turns": [...], "default": {...}, "models": ["a", "b"]}
//
// where each turn is a Turn in its JSON form, plus "chunkDelayMs" for
// ChunkDelay: {"text": "Hi there", "chunkDelayMs": 50},
// {"toolCalls": [{"name": "read", "arguments": "{\"path\":\"a\"}"}]},
// {"status": 429, "retryAfter": "1"}, {"echo": true},
// {"text": "a long answer", "pauseAfter": 3}.
type Script struct {
	Turns []Turn
	// Default is played whenever Turns has run out (nil: answer with a
	// NoTurnLeft error).
	Default *Turn
	// Models are the IDs GET /models lists (empty: the server's default).
	Models []string
}

// scriptTurn is a Turn as a script spells it.
type scriptTurn struct {
	Turn
	ChunkDelayMs int `json:"chunkDelayMs,omitempty"`
}

func (st scriptTurn) turn() Turn {
	t := st.Turn
	t.ChunkDelay = time.Duration(st.ChunkDelayMs) * time.Millisecond
	return t
}

// ParseScript decodes a script from its JSON form.
func ParseScript(data []byte) (Script, error) {
	data = bytes.TrimSpace(data)
	var doc struct {
		Turns   []scriptTurn `json:"turns"`
		Default *scriptTurn  `json:"default"`
		Models  []string     `json:"models"`
	}
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &doc.Turns); err != nil {
			return Script{}, fmt.Errorf("parse script: %w", err)
		}
	} else if err := json.Unmarshal(data, &doc); err != nil {
		return Script{}, fmt.Errorf("parse script: %w", err)
	}
	var s Script
	for _, st := range doc.Turns {
		s.Turns = append(s.Turns, st.turn())
	}
	if doc.Default != nil {
		t := doc.Default.turn()
		s.Default = &t
	}
	s.Models = doc.Models
	return s, nil
}

// Load applies a script to the server: its turns are appended, and its
// default and models replace the server's.
func (s *Server) Load(sc Script) {
	s.Push(sc.Turns...)
	if sc.Default != nil {
		s.SetDefault(*sc.Default)
	}
	if len(sc.Models) > 0 {
		s.SetModels(sc.Models...)
	}
}
