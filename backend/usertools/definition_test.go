package usertools

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNormalizeParameters pins which parameter schemas a user tool may
// declare and what is said of the others: the checks of the JSON Schema
// library (github.com/google/jsonschema-go: decoding, references, patterns)
// and of the drafts' meta-schemas (checkMetaSchema), keyword by keyword
// and draft by draft. An accepted schema comes back compacted, with
// "type": "object" added when it had no type; a refused one with its
// reason (meta-schema problems at their JSON pointer).
func TestNormalizeParameters(t *testing.T) {
	t.Parallel()
	cases := []struct {
		schema  string
		want    string // the normalized schema, when accepted
		wantErr string // the start of the error, when refused
	}{
		{``, `{"type":"object","properties":{}}`, ""},
		{`null`, `{"type":"object","properties":{}}`, ""},
		{`{}`, `{"type":"object"}`, ""},
		{`{"type":"object"}`, `{"type":"object"}`, ""},
		{`{"properties":{"a":{"type":"string"}}}`, `{"properties":{"a":{"type":"string"}},"type":"object"}`, ""},
		{`{"type":"object","properties":{"a":{"type":"strng"}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/type': 'strng' is not a type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'`},
		{`{"type":"array"}`, "", `its parameters must be a schema of type "object"`},
		{`{"type":["object","null"]}`, "", `its parameters must be a schema of type "object"`},
		{`{"type":"object","required":"a"}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","required":["a","a"]}`, "", `its parameters are not valid JSON Schema: at '/required': items at 0 and 1 are equal`},
		{`{"type":"object","required":[1]}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":[]}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"minimum":"x"}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"minLength":-1}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/minLength': minimum: got -1, want 0`},
		{`{"type":"object","properties":{"a":{"minLength":1.5}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"multipleOf":0}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/multipleOf': exclusiveMinimum: got 0, want 0`},
		{`{"type":"object","properties":{"a":{"multipleOf":-2}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/multipleOf': exclusiveMinimum: got -2, want 0`},
		{`{"type":"object","properties":{"a":{"enum":5}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"enum":[]}}}`, `{"type":"object","properties":{"a":{"enum":[]}}}`, ""},
		{`{"type":"object","properties":{"a":{"enum":[1,1]}}}`, `{"type":"object","properties":{"a":{"enum":[1,1]}}}`, ""},
		{`{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]}}}`, `{"type":"object","properties":{"a":{"type":"string","enum":["x","y"]}}}`, ""},
		{`{"type":"object","additionalProperties":"no"}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","additionalProperties":false}`, `{"type":"object","additionalProperties":false}`, ""},
		{`{"type":"object","properties":{"a":{"allOf":[]}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/allOf': minItems: got 0, want 1`},
		{`{"type":"object","properties":{"a":{"anyOf":[]}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/anyOf': minItems: got 0, want 1`},
		{`{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, `{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, ""},
		{`{"type":"object","properties":{"a":{"prefixItems":[]}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/prefixItems': minItems: got 0, want 1`},
		{`{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"},"uniqueItems":"yes"}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"type":"string","format":"date-time"}}}`, `{"type":"object","properties":{"a":{"type":"string","format":"date-time"}}}`, ""},
		{`{"type":"object","properties":{"a":{"type":"string","format":7}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"^[a-z]+$"}}}`, `{"type":"object","properties":{"a":{"type":"string","pattern":"^[a-z]+$"}}}`, ""},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`, ""},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/missing"}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"$ref":"other.json"}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}}}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string"}}}`, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema","type":"object"}`, `{"$schema":"http://json-schema.org/draft-07/schema","type":"object"}`, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"x":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/x"}}}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","definitions":{"x":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/x"}}}`, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"strng"}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/type': 'strng' is not a type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`, ""},
		{`{"$schema":"http://json-schema.org/draft-06/schema#","type":"object"}`, `{"$schema":"http://json-schema.org/draft-06/schema#","type":"object"}`, ""},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, ""},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"number","minimum":1,"exclusiveMinimum":true}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object"}`, `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object"}`, ""},
		{`{"$schema":"https://example.com/my-meta","type":"object"}`, "", `its parameters are not valid JSON Schema: its $schema "https://example.com/my-meta" is not a JSON Schema draft TinyElf knows`},
		{`{"$schema":5,"type":"object"}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"type":"string","default":5}}}`, `{"type":"object","properties":{"a":{"type":"string","default":5}}}`, ""},
		{`{"type":"object","properties":{"a":{"type":"string","description":5}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"type":"string","title":["x"]}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"deprecated":"yes"}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","x-custom":{"anything":1},"properties":{"a":true}}`, `{"type":"object","x-custom":{"anything":1},"properties":{"a":true}}`, ""},
		{`{"type":"object","properties":{"a":false}}`, `{"type":"object","properties":{"a":false}}`, ""},
		{`{"type":"object","dependentRequired":{"a":["b","b"]}}`, "", `its parameters are not valid JSON Schema: at '/dependentRequired/a': items at 0 and 1 are equal`},
		{`{"type":"object","dependentRequired":{"a":"b"}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","$id":"not a uri with spaces"}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","$anchor":"1bad"}`, "", `its parameters are not valid JSON Schema: at '/$anchor': '1bad' does not match pattern '^[A-Za-z_][-A-Za-z0-9._]*$'`},
		{`{"type":"object","minProperties":-1}`, "", `its parameters are not valid JSON Schema: at '/minProperties': minimum: got -1, want 0`},
		{`{"type":"object","properties":{"a":{"const":null}}}`, `{"type":"object","properties":{"a":{"const":null}}}`, ""},
		{`{"type":"object","properties":{"a":{"contentEncoding":5}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"type":[]}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/type': minItems: got 0, want 1`},
		{`{"type":"object","properties":{"a":{"type":["string","string"]}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/type': items at 0 and 1 are equal`},
		{`{"type":"object","properties":{"a":{"type":"integer","exclusiveMinimum":true}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"$dynamicRef":"#meta"}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","$vocabulary":{"https://json-schema.org/draft/2020-12/vocab/core":true}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","unevaluatedProperties":false}`, `{"type":"object","unevaluatedProperties":false}`, ""},
		{`{"type":"object","propertyNames":{"pattern":"^[a-z]+$"}}`, `{"type":"object","propertyNames":{"pattern":"^[a-z]+$"}}`, ""},
		{`{"type":"object","patternProperties":{"(":{}}}`, "", `its parameters are not valid JSON Schema: `},
		{`[1,2]`, "", `its parameters are not a JSON object`},
		{`"object"`, "", `its parameters are not a JSON object`},
		{`true`, "", `its parameters are not a JSON object`},
		{`{"type":"object","properties":{"a":{"if":{"type":"string"},"then":{"minLength":1},"else":5}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/items': got array, want boolean or object`},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`, `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"a":{"items":[{"type":"string"}]}}}`, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"prefixItems":[]}}}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"prefixItems":[]}}}`, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","$anchor":"1bad"}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","$anchor":"1bad"}`, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependentRequired":{"a":["b","b"]}}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependentRequired":{"a":["b","b"]}}`, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependencies":{"a":["b","b"]}}`, "", `its parameters are not valid JSON Schema: at '/dependencies/a': items at 0 and 1 are equal`},
		{`{"type":"object","dependencies":{"a":["b","b"]}}`, "", `its parameters are not valid JSON Schema: at '/dependencies/a': items at 0 and 1 are equal`},
		{`{"type":"object","dependencies":{"a":5}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","definitions":{"a":5}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","$recursiveAnchor":"x"}`, "", `its parameters are not valid JSON Schema: at '/$recursiveAnchor': got string, want boolean`},
		{`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","$anchor":"a:b"}`, `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","$anchor":"a:b"}`, ""},
		{`{"type":"object","$anchor":"a:b"}`, "", `its parameters are not valid JSON Schema: at '/$anchor': 'a:b' does not match pattern '^[A-Za-z_][-A-Za-z0-9._]*$'`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","required":[]}`, "", `its parameters are not valid JSON Schema: at '/required': minItems: got 0, want 1`},
		{`{"type":"object","required":[]}`, `{"type":"object","required":[]}`, ""},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":[]}`, `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":[]}`, ""},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"type":"strng"}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/type': 'strng' is not a type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'`},
		{`{"$schema":"http://json-schema.org/draft-06/schema#","type":"object","properties":{"a":{"minLength":-1}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/minLength': minimum: got -1, want 0`},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"a":{"multipleOf":0}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/multipleOf': exclusiveMinimum: got 0, want 0`},
		{`{"type":"object","properties":{"a":{"$ref":"has space"}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"type":"string","format":"not-a-known-format"}}}`, `{"type":"object","properties":{"a":{"type":"string","format":"not-a-known-format"}}}`, ""},
		{`{"type":"object","$comment":5}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","contentSchema":5}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"type":"array","contains":{"type":"string"},"minContains":-1}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/minContains': minimum: got -1, want 0`},
		{`{"type":"object","properties":{"a":{"type":"array","maxItems":-3}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/maxItems': minimum: got -3, want 0`},
		{`{"type":"object","additionalItems":5}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","$dynamicAnchor":"1x"}`, "", `its parameters are not valid JSON Schema: at '/$dynamicAnchor': '1x' does not match pattern '^[A-Za-z_][-A-Za-z0-9._]*$'`},
		{`{"type":"object","properties":{"a":{"not":5}}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","patternProperties":{"^a":5}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","dependentSchemas":{"a":5}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","$defs":{"a":5}}`, "", `its parameters are not valid JSON Schema: `},
		{`{"type":"object","properties":{"a":{"oneOf":[]}}}`, "", `its parameters are not valid JSON Schema: at '/properties/a/oneOf': minItems: got 0, want 1`},
		{`{"type":"object","properties":{"a":{"maximum":1e400}}}`, "", `its parameters are not a JSON object`},
		{`{"$schema":"http://json-schema.org/schema#","type":"object"}`, `{"$schema":"http://json-schema.org/schema#","type":"object"}`, ""},
		{`{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object"}`, `{"$schema":"https://json-schema.org/draft/2020-12/schema#","type":"object"}`, ""},
		{`{"$schema":"http://json-schema.org/draft/2020-12/schema","type":"object"}`, `{"$schema":"http://json-schema.org/draft/2020-12/schema","type":"object"}`, ""},
		{`{"$schema":"https://json-schema.org/draft-07/schema#","type":"object"}`, `{"$schema":"https://json-schema.org/draft-07/schema#","type":"object"}`, ""},
		{`{"$schema":"","type":"object"}`, `{"$schema":"","type":"object"}`, ""},
	}
	for _, c := range cases {
		got, err := normalizeParameters(json.RawMessage(c.schema))
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s: refused: %v", c.schema, err)
		case c.wantErr == "" && string(got) != c.want:
			t.Errorf("%s: normalized to %s, want %s", c.schema, got, c.want)
		case c.wantErr != "" && err == nil:
			t.Errorf("%s: accepted as %s, want refused (%s)", c.schema, got, c.wantErr)
		case c.wantErr != "" && !strings.HasPrefix(err.Error(), c.wantErr):
			t.Errorf("%s: error %q, want it to start %q", c.schema, err, c.wantErr)
		}
	}
}
