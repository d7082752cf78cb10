package main

import (
	"errors"
	"slices"
	"testing"
)

func TestTakeExtraFlags(t *testing.T) {
	tests := []struct {
		name    string
		in      []string
		want    extraFlags
		rest    []string
		wantErr bool
	}{
		{"none", []string{"--port", "1"}, extraFlags{}, []string{"--port", "1"}, false},
		{"metrics between directives",
			[]string{"--port", "1", "--metrics-addr", "127.0.0.1:0", "--sentinel", "monitor", "m", "127.0.0.1", "6379", "2"},
			extraFlags{metricsAddr: "127.0.0.1:0"}, []string{"--port", "1", "--sentinel", "monitor", "m", "127.0.0.1", "6379", "2"}, false},
		{"equals form and json", []string{"--log-format=json", "--METRICS-ADDR=:9100"},
			extraFlags{metricsAddr: ":9100", logFormat: "json"}, []string{}, false},
		{"last", []string{"--loglevel", "debug", "--log-format", "text"},
			extraFlags{logFormat: "text"}, []string{"--loglevel", "debug"}, false},
		{"missing value", []string{"--metrics-addr"}, extraFlags{}, nil, true},
		{"missing value before directive", []string{"--metrics-addr", "--port", "1"}, extraFlags{}, nil, true},
		{"two values", []string{"--metrics-addr", "a:1", "b:2"}, extraFlags{}, nil, true},
		{"bad format", []string{"--log-format", "xml"}, extraFlags{}, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rest, err := takeExtraFlags(tt.in)
			if tt.wantErr {
				if !errors.Is(err, errFlag) {
					t.Fatalf("error = %v, want errFlag", err)
				}
				return
			}
			if err != nil || got != tt.want || !slices.Equal(rest, tt.rest) {
				t.Errorf("takeExtraFlags = %+v, %q, %v; want %+v, %q", got, rest, err, tt.want, tt.rest)
			}
		})
	}
}
