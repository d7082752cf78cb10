package harness

import (
	"errors"
	"reflect"
	"testing"
)

// parseCase is one row of a table test of a parser from text to T.
type parseCase[T any] struct {
	name    string
	in      string
	want    T
	wantErr bool
}

// runParseCases runs parse on every case as a subtest: an error exactly
// when wantErr, errors matching errKind (unless errKind is nil), and the
// result deeply equal to want (the zero value on error).
func runParseCases[T any](t *testing.T, parse func(string) (T, error), errKind error, tests []parseCase[T]) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parse(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if err != nil && errKind != nil && !errors.Is(err, errKind) {
				t.Errorf("err = %v, want %v", err, errKind)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}
