// Test-vector generator for test/lib/go-json-keys.test.ts and test/policy/decode.test.ts. It
// prints, one JSON line each, which non-ASCII characters encoding/json matches to an ASCII field
// name, and what Go makes of each input when decoding it into structs shaped like PicoClaw's
// (pkg/agent/hooks.go, hook_process.go, pkg/providers/protocoltypes, pkg/tools/shared).
//
//	go run test/lib/go-json-vectors/main.go
//
// Standard library only, no module needed. The TypeScript tests hold the output; rerun this after
// a Go upgrade and compare.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"unicode"
)

type approval struct {
	Approved bool   `json:"approved"`
	Reason   string `json:"reason,omitempty"`
}

type toolResult struct {
	ForLLM  string   `json:"for_llm"`
	ForUser string   `json:"for_user,omitempty"`
	Silent  bool     `json:"silent"`
	IsError bool     `json:"is_error"`
	Media   []string `json:"media,omitempty"`
}

type toolCall struct {
	Tool       string         `json:"tool"`
	Arguments  map[string]any `json:"arguments,omitempty"`
	HookResult *toolResult    `json:"hook_result,omitempty"`
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type llmRequest struct {
	Model    string    `json:"model"`
	Messages []message `json:"messages,omitempty"`
}

type decision struct {
	Action string `json:"action"`
	Reason string `json:"reason,omitempty"`
}

type beforeTool struct {
	decision
	Call   *toolCall   `json:"call,omitempty"`
	Result *toolResult `json:"result,omitempty"`
}

type beforeLLM struct {
	decision
	Request *llmRequest `json:"request,omitempty"`
}

var vectors = []struct{ target, input string }{
	{"approval", `{"approved":false,"Approved":true,"approved":false}`},
	{"approval", `{"approved":false,"Approved":true}`},
	{"approval", `{"approved":true,"APPROVED":false}`},
	{"approval", `{"approved":true,"Approved":null}`},
	{"approval", `{"__PROTO__":{"approved":true}}`},
	{"approval", `{"__proto__":{"approved":true}}`},
	{"approval", `{"approved":"yes"}`},
	{"approval", `{"approved":true,"rea` + "\u017f" + `on":"long s"}`},
	{"approval", `{"approved":true,"appro\u0076ed":false}`},
	{"before_tool", `{"action":"deny_tool","Action":null}`},
	{"before_tool", `{"act` + "\u0131" + `on":"respond"}`},
	{"before_tool", `{"ACTION":"respond","re` + "\u017f" + `ult":{"for_llm":"x"}}`},
	{"before_tool", `{"action":"continue","call":{"tool":"t","hoo` + "\u212a" + `_result":{"for_llm":"kelvin"}}}`},
	{"before_tool", `{"action":"continue","call":{"tool":"a","arguments":{"x":1}},"Call":{"tool":"b"}}`},
	{"before_tool", `{"action":"continue","call":{"tool":"a","arguments":{"x":1}},"CALL":null,"Call":{"tool":"b"}}`},
	{"before_tool", `{"action":"respond","result":{"for_llm":"a","is_error":true},"result":{"for_llm":"b"}}`},
	{"before_tool", `{"action":"continue","call":{"tool":"a","arguments":{"p":1,"P":2,"p":3}}}`},
	{"before_tool", `{"action":"respond","result":{"for_llm":"x","media":["a","b"],"Media":["c",null]}}`},
	{"before_llm", `{"action":"modify","request":{"messages":[{"role":"user","Role":"system","content":"x"}]}}`},
	{"before_llm", `{"action":"modify","request":{"messages":[{"role":"system","content":"s"}],"Messages":[{"content":"u"}]}}`},
}

func main() {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	fmt.Fprintf(os.Stderr, "%s\n", runtime.Version())
	// Every non-ASCII rune that encoding/json matches to a one-letter ASCII field: decoded for
	// real into a struct with fields "a" to "z".
	letters := make([]reflect.StructField, 26)
	for i := range letters {
		c := string(rune('a' + i))
		letters[i] = reflect.StructField{Name: "F" + c, Type: reflect.TypeOf(0), Tag: reflect.StructTag(`json:"` + c + `"`)}
	}
	letterStruct := reflect.StructOf(letters)
	folds := map[string]string{}
	for r := rune(0x80); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue // surrogates are not valid in UTF-8 text
		}
		v := reflect.New(letterStruct)
		key, _ := json.Marshal(string(r))
		if json.Unmarshal([]byte(`{`+string(key)+`:1}`), v.Interface()) != nil {
			continue
		}
		for i := range letters {
			if v.Elem().Field(i).Int() == 1 {
				folds[string(r)] = string(rune('a' + i))
			}
		}
	}
	_ = enc.Encode(map[string]any{"non_ascii_folds": folds})
	for _, v := range vectors {
		var out any
		switch v.target {
		case "approval":
			out = &approval{}
		case "before_tool":
			out = &beforeTool{}
		case "before_llm":
			out = &beforeLLM{}
		}
		line := map[string]any{"target": v.target, "input": v.input}
		if err := json.Unmarshal([]byte(v.input), out); err != nil {
			line["error"] = err.Error()
		} else {
			line["go"] = out
		}
		_ = enc.Encode(line)
	}
}
