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
//	{"turns": [...], "default": {...}, "models": ["a", "b"],
//	 "routes": [{"system": "You name chat sessions", "turn": {...}}]}
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
	// Routes answer the requests whose system prompt they match, outside
	// the script's order (see Route).
	Routes []Route
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
		Routes  []struct {
			System string     `json:"system"`
			Turn   scriptTurn `json:"turn"`
		} `json:"routes"`
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
	for _, r := range doc.Routes {
		s.Routes = append(s.Routes, Route{System: r.System, Turn: r.Turn.turn()})
	}
	return s, nil
}

// Load applies a script to the server: its turns and routes are appended,
// and its default and models replace the server's.
func (s *Server) Load(sc Script) {
	s.Push(sc.Turns...)
	for _, r := range sc.Routes {
		s.AddRoute(r)
	}
	if sc.Default != nil {
		s.SetDefault(*sc.Default)
	}
	if len(sc.Models) > 0 {
		s.SetModels(sc.Models...)
	}
}
