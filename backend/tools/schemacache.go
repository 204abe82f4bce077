package tools

import (
	"crypto/sha256"
	"encoding/json"
	"sync"
)

// maxCachedSchemas bounds a SchemaCache; past it the cache starts over.
const maxCachedSchemas = 4096

// SchemaCache remembers compiled parameter schemas by their text, so that
// the registries of many sessions (each subagent builds its own) do not
// compile the same tool schemas again. A compiled schema is never changed
// after compiling, so registries may share it. The zero value is not
// usable; make one with NewSchemaCache. It is safe for concurrent use.
type SchemaCache struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]cachedSchema
}

type cachedSchema struct {
	schema *paramSchema
	err    error
}

// NewSchemaCache returns an empty cache.
func NewSchemaCache() *SchemaCache {
	return &SchemaCache{m: map[[sha256.Size]byte]cachedSchema{}}
}

// compile returns raw compiled, from the cache when it was compiled before.
func (c *SchemaCache) compile(raw json.RawMessage) (*paramSchema, error) {
	if c == nil {
		return compileSchema(raw)
	}
	key := sha256.Sum256(raw)
	c.mu.Lock()
	got, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return got.schema, got.err
	}
	s, err := compileSchema(raw)
	c.mu.Lock()
	if len(c.m) >= maxCachedSchemas {
		clear(c.m)
	}
	c.m[key] = cachedSchema{s, err}
	c.mu.Unlock()
	return s, err
}

// WithSchemaCache makes the registry (and the registries filtered from it)
// compile parameter schemas through c.
func WithSchemaCache(c *SchemaCache) RegistryOption {
	return func(r *Registry) { r.schemas = c }
}
