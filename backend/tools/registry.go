package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultMaxOutputBytes is the seed's maxChars: results longer than this are
// truncated with a "(truncated)" mark.
const DefaultMaxOutputBytes = 50 * 1024

// ErrorHint ends every error result, as the seed's execute flow asks.
const ErrorHint = "[Analyze the error above and try a different approach.]"

// TruncatedMark is the mark a truncated result carries.
const TruncatedMark = "(truncated)"

// DefaultCallTimeout bounds one tool call whose tool declares no longer
// timeout (Timeouter), unless WithCallTimeout says otherwise.
const DefaultCallTimeout = 10 * time.Minute

const (
	// callTimeoutMargin is added to a Timeouter's own timeout, so that a
	// tool that honours its deadline reports the timeout itself.
	callTimeoutMargin = 5 * time.Second
	// abandonGrace is how long a call whose context ended gets to return
	// its own result (partial output, a clear message) before the pipeline
	// stops waiting for it.
	abandonGrace = 300 * time.Millisecond
)

// Timeouter is implemented by tools whose calls may legitimately run longer
// than the registry's call timeout, or for a time the call chooses (Bash
// and its timeout parameter, MCP tools and their server's call timeout).
// The pipeline then waits that long plus a margin before it abandons the
// call.
type Timeouter interface {
	CallTimeout(params map[string]any) time.Duration
}

// toolNamePattern is the function-name rule shared by OpenAI and Anthropic.
var toolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// Call is one tool call on its way through the registry, after its arguments
// have been coerced and validated.
type Call struct {
	ID     string
	Name   string
	Info   Info
	Params map[string]any

	schema *paramSchema // the tool's, for Replace; nil on a hand-made Call
}

// Replace makes params the call's parameters once they pass the tool's
// schema, coerced as the model's arguments are (a middleware changing a
// call: a hook's updatedInput). When they do not, the call keeps its
// parameters and the error says what is wrong, for the model to read.
func (c *Call) Replace(params map[string]any) error {
	if params == nil {
		params = map[string]any{}
	}
	if c.schema != nil {
		params = c.schema.coerce(params)
		if msg := c.schema.validate(params); msg != "" {
			return errors.New(msg)
		}
	}
	c.Params = params
	return nil
}

// Handler runs a validated call.
type Handler func(ctx context.Context, call *Call) (Result, error)

// Middleware wraps the execution of validated calls: the engine adds the
// visibility check, the permission gate and hooks this way. A middleware that
// refuses a call returns an error Result and does not call next.
type Middleware func(next Handler) Handler

// CallResult is the outcome of Registry.Execute: what the model reads
// (Content), whether it is an error, and what the log and UI keep.
type CallResult struct {
	CallID  string         `json:"callId"`
	Name    string         `json:"name"`
	Params  map[string]any `json:"params,omitempty"`
	Content string         `json:"content"`
	IsError bool           `json:"isError,omitempty"`
	// Invalid marks a call refused before running because its arguments
	// did not parse or match the schema (the discovery policy demotes a tool
	// called invalidly again and again).
	Invalid   bool           `json:"invalid,omitempty"`
	Truncated bool           `json:"truncated,omitempty"`
	Meta      map[string]any `json:"meta,omitempty"`
	Duration  time.Duration  `json:"duration"`
}

// Definition is a tool in the OpenAI function-calling format.
type Definition struct {
	Type     string      `json:"type"`
	Function FunctionDef `json:"function"`
}

// FunctionDef is the function part of a Definition.
type FunctionDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

type entry struct {
	tool   Tool
	info   Info
	schema *paramSchema
}

// Registry is the seed's ToolRegistry: it holds tools by name and runs calls
// through the execute flow (lookup, coercion, validation, middleware,
// execution, truncation, error hint). It is safe for concurrent use; tools
// registered in it must be too.
type Registry struct {
	mu         sync.RWMutex
	entries    map[string]*entry
	order      []string
	maxOutput  int
	middleware []Middleware
	timeout    time.Duration
	schemas    *SchemaCache // nil: compile every schema
}

// RegistryOption configures a Registry.
type RegistryOption func(*Registry)

// WithMaxOutputBytes sets the default output limit (the seed's maxChars).
func WithMaxOutputBytes(n int) RegistryOption {
	return func(r *Registry) {
		if n > 0 {
			r.maxOutput = n
		}
	}
}

// WithCallTimeout sets how long a call may run (DefaultCallTimeout when
// not set) before the pipeline abandons it, whether or not the tool honours
// its context. Tools that implement Timeouter may take longer.
func WithCallTimeout(d time.Duration) RegistryOption {
	return func(r *Registry) {
		if d > 0 {
			r.timeout = d
		}
	}
}

// WithMiddleware adds middleware around tool execution; the first one given is
// the outermost.
func WithMiddleware(mw ...Middleware) RegistryOption {
	return func(r *Registry) { r.middleware = append(r.middleware, mw...) }
}

// NewRegistry returns an empty registry.
func NewRegistry(opts ...RegistryOption) *Registry {
	r := &Registry{entries: map[string]*entry{}, maxOutput: DefaultMaxOutputBytes, timeout: DefaultCallTimeout}
	for _, o := range opts {
		o(r)
	}
	return r
}

// ErrDuplicateTool is wrapped by Register's error when a tool of that name
// is already registered: two tools of one name would leave the model
// calling whichever came last, so the caller must resolve the clash (rename,
// report, or Unregister first).
var ErrDuplicateTool = errors.New("a tool of that name is already registered")

// Register adds a tool. It fails when the name is taken (ErrDuplicateTool),
// is not a valid function name, or the parameter schema does not parse.
func (r *Registry) Register(t Tool) error {
	p, err := prepare(t, r.schemas)
	if err != nil {
		return fmt.Errorf("register tool %q: %w", t.Info().Name, err)
	}
	return r.RegisterPrepared(p)
}

// Prepared is a tool checked and with its parameter schema compiled, ready
// to be registered in any number of registries without compiling again
// (a catalog prepares each tool once; every session's registry reuses it).
// It is immutable and safe for concurrent use.
type Prepared struct {
	tool   Tool
	info   Info
	schema *paramSchema
}

// Prepare checks a tool's name and compiles its parameter schema. The
// error says what is wrong with the tool.
func Prepare(t Tool) (*Prepared, error) { return prepare(t, nil) }

// prepare is Prepare compiling through c (nil: no cache).
func prepare(t Tool, c *SchemaCache) (*Prepared, error) {
	info := t.Info()
	if !toolNamePattern.MatchString(info.Name) {
		return nil, fmt.Errorf("its name %q must match %s", info.Name, toolNamePattern)
	}
	if info.Source == "" {
		info.Source = SourceLocal
	}
	if len(info.Parameters) == 0 {
		info.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	schema, err := c.compile(info.Parameters)
	if err != nil {
		return nil, fmt.Errorf("its %w", err)
	}
	return &Prepared{tool: t, info: info, schema: schema}, nil
}

// Tool returns the prepared tool.
func (p *Prepared) Tool() Tool { return p.tool }

// WithTool returns p bound to t instead, keeping its checked Info and
// compiled schema: for another value of the same tool (another session's),
// which must describe itself exactly as p's tool did.
func (p *Prepared) WithTool(t Tool) *Prepared {
	q := *p
	q.tool = t
	return &q
}

// RegisterPrepared adds a prepared tool; it fails on a duplicate name.
func (r *Registry) RegisterPrepared(p *Prepared) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entries[p.info.Name]; ok {
		return fmt.Errorf("register tool %q: %w", p.info.Name, ErrDuplicateTool)
	}
	r.order = append(r.order, p.info.Name)
	r.entries[p.info.Name] = &entry{tool: p.tool, info: p.info, schema: p.schema}
	return nil
}

// RegisterAll registers each tool in turn and stops at the first failure.
func (r *Registry) RegisterAll(ts ...Tool) error {
	for _, t := range ts {
		if err := r.Register(t); err != nil {
			return err
		}
	}
	return nil
}

// Unregister removes a tool and reports whether it was there.
func (r *Registry) Unregister(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.entries[name]; !ok {
		return false
	}
	delete(r.entries, name)
	r.order = slices.DeleteFunc(r.order, func(n string) bool { return n == name })
	return true
}

// Get returns the named tool.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[name]
	if !ok {
		return nil, false
	}
	return e.tool, true
}

// Info returns the named tool's Info as registered (with defaults filled in).
func (r *Registry) Info(name string) (Info, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	e, ok := r.entries[name]
	if !ok {
		return Info{}, false
	}
	return e.info, true
}

// Has reports whether a tool of that name is registered.
func (r *Registry) Has(name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.entries[name]
	return ok
}

// All returns the tools in registration order.
func (r *Registry) All() []Tool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.entries[n].tool)
	}
	return out
}

// Infos returns every tool's Info in registration order.
func (r *Registry) Infos() []Info {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Info, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.entries[n].info)
	}
	return out
}

// Names returns the tool names in registration order.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.order)
}

// Len returns the number of registered tools.
func (r *Registry) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.order)
}

// Definitions returns every tool in the OpenAI function-calling format, in
// registration order (a stable order keeps provider prompt caches warm).
func (r *Registry) Definitions() []Definition {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Definition, 0, len(r.order))
	for _, n := range r.order {
		e := r.entries[n]
		out = append(out, Definition{Type: "function", Function: FunctionDef{
			Name: e.info.Name, Description: e.info.Description, Parameters: e.info.Parameters,
		}})
	}
	return out
}

// Filtered returns a new registry holding only the named tools that exist
// here, with the same settings and middleware. Unknown names are ignored.
func (r *Registry) Filtered(allowed []string) *Registry {
	return r.FilteredFunc(func(info Info) bool { return slices.Contains(allowed, info.Name) })
}

// FilteredFunc returns a new registry holding the tools for which keep is true.
func (r *Registry) FilteredFunc(keep func(Info) bool) *Registry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f := &Registry{entries: map[string]*entry{}, maxOutput: r.maxOutput, middleware: slices.Clone(r.middleware), timeout: r.timeout, schemas: r.schemas}
	for _, n := range r.order {
		e := r.entries[n]
		if keep(e.info) {
			f.entries[n] = e
			f.order = append(f.order, n)
		}
	}
	return f
}

// Execute runs one tool call through the seed's flow and never panics:
//
//  1. an unknown tool is an error result listing the available tools;
//  2. argument JSON is parsed and the type errors models commonly make are
//     coerced towards the schema;
//  3. required parameters and the schema are validated;
//  4. the tool runs (inside the middleware; a panic becomes an error
//     result) under a deadline the pipeline enforces: a call that outlives
//     it, or whose context ends, and does not return within a moment is
//     abandoned with an error result, so a stuck tool never holds the turn;
//  5. output over the limit is truncated with a "(truncated)" mark;
//  6. error results end with ErrorHint.
func (r *Registry) Execute(ctx context.Context, callID, name string, args json.RawMessage) CallResult {
	start := time.Now()
	res := r.execute(ctx, callID, name, args)
	res.Duration = time.Since(start)
	return res
}

func (r *Registry) execute(ctx context.Context, callID, name string, args json.RawMessage) CallResult {
	out := CallResult{CallID: callID, Name: name}
	r.mu.RLock()
	e, ok := r.entries[name]
	mws := r.middleware
	maxOut := r.maxOutput
	timeout := r.timeout
	r.mu.RUnlock()
	if !ok {
		return r.finish(out, Errorf("Unknown tool %q. Available tools: %s.", name, r.availableList()), maxOut)
	}
	if e.info.MaxOutputBytes > 0 {
		maxOut = e.info.MaxOutputBytes
	}

	params, err := decodeArgs(args)
	if err != nil {
		out.Invalid = true
		return r.finish(out, Errorf("Invalid arguments for %s: %v. Arguments must be a JSON object matching the tool's parameters.", name, err), maxOut)
	}
	params = e.schema.coerce(params)
	out.Params = params
	if msg := e.schema.validate(params); msg != "" {
		out.Invalid = true
		return r.finish(out, Errorf("Invalid arguments for %s: %s", name, msg), maxOut)
	}

	call := &Call{ID: callID, Name: name, Info: e.info, Params: params, schema: e.schema}
	if tt, ok := e.tool.(Timeouter); ok {
		if d := tt.CallTimeout(params); d > 0 {
			timeout = d + callTimeoutMargin
		}
	}
	h := Handler(func(ctx context.Context, c *Call) (Result, error) { return runBounded(ctx, e.tool, c, timeout) })
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	ctx = WithCallID(ctx, callID)
	res := runRecovered(ctx, h, call)
	return r.finish(out, res, maxOut)
}

// runBounded runs the tool in a goroutine of its own under timeout and
// returns what it returns, or, once ctx has ended (the deadline, or the turn
// being cancelled) and the tool has had abandonGrace to return anyway, an
// error result saying the call was abandoned. An abandoned tool's goroutine
// is left to finish on its own (a Go call blocked in the kernel cannot be
// interrupted); its context is cancelled, so a tool that checks it stops.
func runBounded(parent context.Context, tool Tool, call *Call, timeout time.Duration) (Result, error) {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1) // buffered: an abandoned tool never blocks on it
	go func() {
		var o outcome
		defer func() {
			if p := recover(); p != nil {
				o = outcome{res: panicResult(call, p)}
			}
			done <- o
		}()
		o.res, o.err = tool.Execute(ctx, call.Params)
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-ctx.Done():
	}
	grace := time.NewTimer(abandonGrace)
	defer grace.Stop()
	select {
	case o := <-done:
		return o.res, o.err
	case <-grace.C:
	}
	meta := map[string]any{"abandoned": true}
	if parent.Err() == nil {
		meta["timedOut"] = true
		return Result{IsError: true, Meta: meta, Content: fmt.Sprintf(
			"%s did not finish within %s and was abandoned; it may have done part of its work. Try a smaller request, or another way.",
			call.Name, timeout.Round(time.Second))}, nil
	}
	meta["cancelled"] = true
	return Result{IsError: true, Meta: meta, Content: fmt.Sprintf(
		"%s was stopped before it finished (the turn was cancelled); it may have done part of its work.", call.Name)}, nil
}

// panicResult is the error result of a tool that panicked.
func panicResult(call *Call, p any) Result {
	return Result{
		Content: fmt.Sprintf("Tool %s crashed: %v. This is a bug in the tool, not in your arguments.", call.Name, p),
		IsError: true,
		Meta:    map[string]any{"panic": fmt.Sprint(p), "stack": string(debug.Stack())},
	}
}

// runRecovered runs h and turns a panic or a Go error into an error result.
func runRecovered(ctx context.Context, h Handler, call *Call) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = panicResult(call, p)
		}
	}()
	r, err := h(ctx, call)
	if err != nil {
		if ctx.Err() != nil {
			return Result{Content: fmt.Sprintf("%s was cancelled: %v", call.Name, err), IsError: true, Meta: r.Meta}
		}
		return Result{Content: fmt.Sprintf("%s failed: %v", call.Name, err), IsError: true, Meta: r.Meta}
	}
	return r
}

func (r *Registry) finish(out CallResult, res Result, maxOut int) CallResult {
	content, truncated := Truncate(res.Content, maxOut)
	if res.IsError && !strings.HasSuffix(content, ErrorHint) {
		if content != "" {
			content += "\n\n"
		}
		content += ErrorHint
	}
	out.Content = content
	out.IsError = res.IsError
	out.Truncated = truncated
	out.Meta = res.Meta
	return out
}

func (r *Registry) availableList() string {
	names := r.Names()
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

// decodeArgs parses the model's argument JSON into an object. Empty input and
// null mean no arguments.
func decodeArgs(args json.RawMessage) (map[string]any, error) {
	trimmed := strings.TrimSpace(string(args))
	if trimmed == "" || trimmed == "null" {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(trimmed), &v); err != nil {
		return nil, fmt.Errorf("not valid JSON (%v)", err)
	}
	// A model sometimes double-encodes the object as a JSON string.
	if s, ok := v.(string); ok {
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return nil, fmt.Errorf("expected a JSON object, got a string")
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object, got %s", jsonKind(v))
	}
	return m, nil
}

type callIDKey struct{}

// WithCallID returns a context carrying the ID of the tool call being run.
func WithCallID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, callIDKey{}, id)
}

// CallIDFromContext returns the ID of the tool call being run, if any.
func CallIDFromContext(ctx context.Context) string {
	id, _ := ctx.Value(callIDKey{}).(string)
	return id
}

type progressKey struct{}

// ProgressFunc receives progress lines from a long-running tool.
type ProgressFunc func(message string)

// WithProgress returns a context whose tools report progress to fn.
func WithProgress(ctx context.Context, fn ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, fn)
}

// ReportProgress sends a progress line to whoever is listening, if anyone.
func ReportProgress(ctx context.Context, message string) {
	if fn, ok := ctx.Value(progressKey{}).(ProgressFunc); ok && fn != nil {
		fn(message)
	}
}
